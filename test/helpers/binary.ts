import { existsSync, mkdtempSync, readdirSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'

export const ROOT = join(import.meta.dir, '../..')
export const BINARY = join(ROOT, 'dist/vigil')

/** The newest change to anything the executable is built from. */
function newestSource(): number {
  let newest = 0
  for (const dir of ['src', 'web', 'migrations']) {
    for (const entry of readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })) {
      // generated files are rewritten by the build itself (web-assets.gen.ts after the executable is written)
      if (entry.isFile() && !entry.name.endsWith('.gen.ts')) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs)
    }
  }
  return Math.max(newest, statSync(join(ROOT, 'package.json')).mtimeMs, statSync(join(ROOT, 'bun.lock')).mtimeMs)
}

/**
 * Builds dist/vigil when it is missing or older than its sources (CI builds it before the
 * tests), so the tests never judge a stale executable. Without the profile run: the same
 * program in ~1 s instead of ~13 s, its bytecode merely laid out in source order
 * (scripts/build.ts), so a first `bun run test` on a fresh clone stays quick.
 */
let checked = false
export function ensureBinary(): string {
  if (!checked && (!existsSync(BINARY) || statSync(BINARY).mtimeMs < newestSource())) {
    const build = Bun.spawnSync([process.execPath, 'run', 'build', '--no-profile'], { cwd: ROOT, stdout: 'ignore', stderr: 'pipe' })
    if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`)
  }
  checked = true
  return BINARY
}

export const tempDir = (prefix = 'vigil-') => mkdtempSync(join(tmpdir(), prefix))

/** Finds a free loopback port by letting the OS pick one. */
export function freePort(): number {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = server.port!
  server.stop(true)
  return port
}

/**
 * Starts `vigil serve` from `cwd` and resolves once /health answers (bounded wait). With
 * `databaseUrl` it serves from that PostgreSQL database (VIGIL_DATABASE_URL), which it migrates
 * first: it gets longer to answer.
 */
/** `onSpawn`: given the process as soon as it exists, before it answers (a test watching what it does at start). */
export async function startBinary(opts: {
  cwd: string
  env?: Record<string, string>
  args?: string[]
  scheme?: 'http' | 'https'
  databaseUrl?: string
  onSpawn?: (proc: Subprocess) => void
}) {
  const port = freePort()
  const proc = Bun.spawn([ensureBinary(), 'serve', ...(opts.args ?? [])], {
    cwd: opts.cwd,
    env: {
      PATH: process.env.PATH ?? '',
      VIGIL_PORT: String(port),
      VIGIL_HOST: '127.0.0.1',
      VIGIL_LOG_FORMAT: 'json',
      ...(opts.databaseUrl ? { VIGIL_DATABASE_URL: opts.databaseUrl } : {}),
      ...opts.env,
    },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  opts.onSpawn?.(proc)
  const base = `${opts.scheme ?? 'http'}://127.0.0.1:${port}`
  for (let i = 0; i < (opts.databaseUrl ? 600 : 100); i++) {
    try {
      const res = await fetch(`${base}/health`, { tls: { rejectUnauthorized: false } } as RequestInit)
      if (res.ok) return { proc, port, base }
    } catch {
      // not listening yet
    }
    if (proc.exitCode !== null) break
    await Bun.sleep(50)
  }
  proc.kill()
  throw new Error(`vigil did not start: ${await new Response(proc.stderr).text()}`)
}
