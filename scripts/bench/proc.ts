/** Process helpers for the bench: free loopback ports, start/stop what we started, RSS. */
import type { Subprocess } from 'bun'
import { closeSync, fsyncSync, openSync, readFileSync } from 'node:fs'

/** the tests' own: a loopback port the OS just handed out */
export { freePort } from '../../test/helpers/binary'

/** VmRSS of a process in MB (null once it has exited). */
export function rssMb(pid: number): number | null {
  return memoryMb(pid)?.rss ?? null
}

/**
 * VmRSS and its two parts in MB: anonymous (the process's own heap, stacks, caches) and
 * file-backed (clean pages of the executable, shared and reclaimable by the kernel).
 */
export function memoryMb(pid: number): { rss: number; anon: number; file: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)\\s+kB`).exec(status)?.[1] ?? 0)
    const mb = (n: number) => Math.round(n / 102.4) / 10
    return { rss: mb(kb('VmRSS')), anon: mb(kb('RssAnon')), file: mb(kb('RssFile') + kb('RssShmem')) }
  } catch {
    return null
  }
}

/**
 * Drops a file's pages from the page cache (written back first: dirty pages stay), so the next
 * process to map it reads what it touches from the disk, as after a reboot. GNU dd's
 * `iflag=nocache count=0` asks the kernel to drop the whole file; pages other processes have
 * mapped stay.
 */
export function dropFromPageCache(path: string): void {
  const fd = openSync(path, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  const dd = Bun.spawnSync(['dd', `if=${path}`, 'iflag=nocache', 'count=0', 'status=none'], { stderr: 'pipe' })
  if (dd.exitCode !== 0) throw new Error(`could not drop ${path} from the page cache: ${dd.stderr.toString()}`)
}

/** Polls `url` until it answers (at most `tries` × 100 ms). */
export async function waitReady(url: string, proc: Subprocess, tries = 150): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (proc.exitCode !== null) throw new Error(`server exited early with code ${proc.exitCode}`)
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) })
      if (res.ok) return
    } catch {}
    await Bun.sleep(100)
  }
  throw new Error(`${url} did not answer within ${tries / 10} s`)
}

/** SIGTERM the process we started, then SIGKILL it if it has not exited within `graceMs`. */
export async function stop(proc: Subprocess, graceMs = 10_000): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return
  proc.kill('SIGTERM')
  const exited = await Promise.race([proc.exited.then(() => true), Bun.sleep(graceMs).then(() => false)])
  if (!exited) {
    proc.kill('SIGKILL')
    await proc.exited
  }
}

/** Runs a helper script of ours in its own bun process and parses the JSON line it prints. */
export async function runJson<T>(script: string, arg: unknown, timeoutMs: number, opts: { lowestPriority?: boolean } = {}): Promise<T> {
  const command = [process.execPath, script, JSON.stringify(arg)]
  const proc = Bun.spawn(opts.lowestPriority ? ['nice', '-n', '19', ...command] : command, { stdout: 'pipe', stderr: 'inherit' })
  const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs)
  const out = await new Response(proc.stdout).text()
  await proc.exited
  clearTimeout(timer)
  if (proc.exitCode !== 0) throw new Error(`${script} failed (exit ${proc.exitCode ?? proc.signalCode})`)
  return JSON.parse(out.trim().split('\n').pop()!) as T
}

/** CPU time (user + system) a process has used so far, in ms; null once it has exited. */
export function cpuMs(pid: number): number | null {
  try {
    // fields after "(comm) ": state is [0], utime [11], stime [12], in clock ticks (100 Hz on Linux)
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(f[11]) + Number(f[12])) * 10
  } catch {
    return null
  }
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

/** The value at quantile `q` (0 to 1) of numbers sorted ascending; 0 when there are none. */
export const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0

/** The machine's load averages over 1, 5 and 15 minutes, as /proc/loadavg gives them. */
export const loadAverages = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')

/** The value after `--name` on the command line, if given. */
export function option(name: string): string | undefined {
  const i = process.argv.indexOf(name)
  return i === -1 ? undefined : process.argv[i + 1]
}

/** The JSON lines a process writes (a hub's log with VIGIL_LOG_FORMAT=json), gathered as they come; `done` once the stream ends. */
export function jsonLines(stream: ReadableStream<Uint8Array>): { lines: Record<string, unknown>[]; done: Promise<void> } {
  const lines: Record<string, unknown>[] = []
  const done = (async () => {
    let rest = ''
    for await (const chunk of stream) {
      rest += new TextDecoder().decode(chunk)
      const parts = rest.split('\n')
      rest = parts.pop()!
      for (const l of parts) if (l.startsWith('{')) lines.push(JSON.parse(l) as Record<string, unknown>)
    }
  })()
  return { lines, done }
}
