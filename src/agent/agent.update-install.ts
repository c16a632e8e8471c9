import { chmodSync, closeSync, copyFileSync, existsSync, linkSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import type { Fetch } from './agent.sender'

/** An update that did not happen; `reason` is stable enough to log and to record as refused. */
export class UpdateError extends Error {
  constructor(
    readonly reason: 'download' | 'too_large' | 'checksum' | 'self_check' | 'swap',
    message: string,
  ) {
    super(message)
  }
}

export interface Offer {
  version: string
  /** absolute, or a path on the hub (a hub that publishes itself) */
  url: string
  sha256: string
}

export interface InstallOptions {
  /** the running executable, replaced in place */
  execPath: string
  /** the hub's origin: the only place the API key is sent to */
  hub: string
  key: string
  fetch: Fetch
  /** the executable of a release is ~100 MB; anything far larger is not one */
  maxBytes?: number
  downloadTimeoutMs?: number
  selfCheckTimeoutMs?: number
  /** the new executable's environment for its self-check */
  env?: Record<string, string | undefined>
}

export const MAX_DOWNLOAD_BYTES = 512 * 1024 * 1024
const DOWNLOAD_TIMEOUT_MS = 10 * 60_000
const SELF_CHECK_TIMEOUT_MS = 60_000

export const previousPath = (execPath: string) => `${execPath}.previous`
const stagingPath = (execPath: string) => join(dirname(execPath), `.${basename(execPath)}.new`)

/**
 * Downloads the offered executable next to the running one (same directory, so the final
 * rename is atomic), hashing as it streams and stopping at the size cap; refuses it unless its
 * SHA-256 is the published one. Returns the staged file's path.
 */
export async function download(offer: Offer, opts: InstallOptions): Promise<string> {
  const url = new URL(offer.url, `${opts.hub}/`)
  // the hub serves its executable compressed (zstd ~51 MB instead of ~123 MB); fetch unpacks it as it
  // streams, so the size cap and the checksum apply to the executable itself
  const headers: Record<string, string> = { 'accept-encoding': 'zstd, gzip' }
  // a download_url elsewhere (a file server, a CDN) never sees the collector's key
  if (url.origin === new URL(opts.hub).origin) headers['x-api-key'] = opts.key
  const staged = stagingPath(opts.execPath)
  const cap = opts.maxBytes ?? MAX_DOWNLOAD_BYTES
  let res: Response
  try {
    res = await opts.fetch(url.href, { headers, signal: AbortSignal.timeout(opts.downloadTimeoutMs ?? DOWNLOAD_TIMEOUT_MS) })
  } catch (err) {
    throw new UpdateError('download', `cannot download ${url.href}: ${(err as Error).message}`)
  }
  if (!res.ok || !res.body) throw new UpdateError('download', `${url.href} answered ${res.status}`)
  const declared = Number(res.headers.get('content-length') ?? 0)
  if (declared > cap) throw new UpdateError('too_large', `${url.href} is ${declared} bytes, over the ${cap}-byte cap`)
  const hasher = new Bun.CryptoHasher('sha256')
  const fd = openSync(staged, 'w', 0o700)
  let size = 0
  try {
    for await (const chunk of res.body) {
      size += chunk.byteLength
      if (size > cap) throw new UpdateError('too_large', `${url.href} goes past the ${cap}-byte cap`)
      hasher.update(chunk)
      writeSync(fd, chunk)
    }
  } catch (err) {
    closeSync(fd)
    rmSync(staged, { force: true })
    if (err instanceof UpdateError) throw err
    throw new UpdateError('download', `download of ${url.href} broke off: ${(err as Error).message}`)
  }
  closeSync(fd)
  const sum = hasher.digest('hex')
  if (sum !== offer.sha256.toLowerCase()) {
    rmSync(staged, { force: true })
    throw new UpdateError('checksum', `${url.href} has SHA-256 ${sum}, the hub published ${offer.sha256}`)
  }
  chmodSync(staged, 0o755)
  return staged
}

async function run(cmd: string[], timeoutMs: number, env: Record<string, string | undefined>): Promise<{ code: number | null; out: string; err: string }> {
  const proc = Bun.spawn(cmd, { stdout: 'pipe', stderr: 'pipe', stdin: 'ignore', env, timeout: timeoutMs, killSignal: 'SIGKILL' })
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()])
  return { code: await proc.exited, out, err }
}

/**
 * The new executable must run on this machine before it replaces anything: `version` prints
 * the published version, and `agent --once` prints one sample (a JSON object with recorded_at,
 * hardware and network). That catches a build for the wrong architecture or C library, a
 * truncated file, and a collector that cannot read this machine.
 */
export async function selfCheck(file: string, version: string, opts: Pick<InstallOptions, 'selfCheckTimeoutMs' | 'env'>): Promise<void> {
  const timeout = opts.selfCheckTimeoutMs ?? SELF_CHECK_TIMEOUT_MS
  const env = { PATH: process.env.PATH, ...opts.env }
  let v: Awaited<ReturnType<typeof run>>
  try {
    v = await run([file, 'version'], timeout, env)
  } catch (err) {
    throw new UpdateError('self_check', `the new executable does not start: ${(err as Error).message}`)
  }
  const printed = v.out.trim()
  if (v.code !== 0 || printed.replace(/^v/, '') !== version.replace(/^v/, ''))
    throw new UpdateError('self_check', `"version" printed "${printed.slice(0, 100)}" (exit ${v.code}), expected ${version}: ${v.err.trim().slice(0, 300)}`)
  const once = await run([file, 'agent', '--once'], timeout, env)
  let sample: { recorded_at?: unknown; hardware?: unknown; network?: unknown } | null = null
  try {
    sample = JSON.parse(once.out)
  } catch {}
  const valid =
    once.code === 0 &&
    sample !== null &&
    typeof sample === 'object' &&
    typeof sample.recorded_at === 'string' &&
    !Number.isNaN(Date.parse(sample.recorded_at)) &&
    typeof sample.hardware === 'object' &&
    typeof sample.network === 'object'
  if (!valid) throw new UpdateError('self_check', `"agent --once" gave no valid sample (exit ${once.code}): ${once.err.trim().slice(0, 300)}`)
}

/**
 * Puts the staged executable in place: the running one is kept as `<path>.previous` (a hard
 * link, so the path is never missing), then a rename replaces the path in one step. A process
 * already running keeps its open file; the next start runs the new one.
 */
export function swap(staged: string, execPath: string): void {
  const previous = previousPath(execPath)
  try {
    rmSync(previous, { force: true })
    try {
      linkSync(execPath, previous)
    } catch {
      copyFileSync(execPath, previous) // a filesystem without hard links
    }
    renameSync(staged, execPath)
  } catch (err) {
    rmSync(staged, { force: true })
    throw new UpdateError('swap', `cannot replace ${execPath}: ${(err as Error).message}`)
  }
}

/** Puts `<path>.previous` back; false when there is none. */
export function restorePrevious(execPath: string): boolean {
  const previous = previousPath(execPath)
  if (!existsSync(previous)) return false
  renameSync(previous, execPath)
  return true
}

/**
 * The marker an update leaves for the next start, in the state dir. The new version's first
 * start counts itself in it; once it has run for a while it removes it. A start that finds
 * itself counted already means the one before died early: it restores `.previous`.
 */
export interface UpdateMarker {
  version: string
  from: string
  exec_path: string
  starts: number
  at: string
}

const markerPath = (stateDir: string) => join(stateDir, 'update.pending')
const refusedPath = (stateDir: string) => join(stateDir, 'update.refused')

export function readMarker(stateDir: string): UpdateMarker | null {
  try {
    return JSON.parse(readFileSync(markerPath(stateDir), 'utf8')) as UpdateMarker
  } catch {
    return null
  }
}

export function writeMarker(stateDir: string, marker: UpdateMarker): void {
  const tmp = `${markerPath(stateDir)}.tmp`
  writeFileSync(tmp, JSON.stringify(marker), { mode: 0o600 })
  renameSync(tmp, markerPath(stateDir))
}

export const clearMarker = (stateDir: string) => rmSync(markerPath(stateDir), { force: true })

/** Versions this machine tried and gave up on: never offered again until a newer one is published. */
export function refusedVersions(stateDir: string): Set<string> {
  try {
    return new Set(readFileSync(refusedPath(stateDir), 'utf8').split('\n').filter(Boolean))
  } catch {
    return new Set()
  }
}

export function refuseVersion(stateDir: string, version: string): void {
  const all = refusedVersions(stateDir)
  all.add(version)
  writeFileSync(refusedPath(stateDir), `${[...all].slice(-50).join('\n')}\n`, { mode: 0o600 })
}
