/**
 * Where the hub's CPU goes under the real-sample ingest load over sockets, beyond what the
 * in-process bench (inproc-real.ts) sees: Bun's HTTP, the garbage collector's helper threads,
 * the checkpoint thread. 200 devices post the real sample to `dist/vigil` for `seconds`; the CPU
 * time of each of the hub's threads (by name, from /proc) is given per request.
 *
 *   bun scripts/bench/inproc-socket.ts [--exe <executable>] [seconds] [sample.json]
 *   bun scripts/bench/inproc-socket.ts --profile <dir> [seconds] [sample.json]
 *
 * With `--profile` the hub runs from source with `--cpu-prof` instead (its JavaScript thread
 * only; the profiler costs CPU of its own), for `bun scripts/bench/inproc-profile.ts <dir>/*.cpuprofile`.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { runJson, stop } from './proc'
import { root } from './common'
import { startVigil } from './run-ingest-real'
import { realSample } from './storage-samples'

let args = process.argv.slice(2)
/** another build to measure (an earlier executable); dist/vigil by default */
let exe = join(root, 'dist/vigil')
if (args[0] === '--exe') {
  exe = args[1]!
  args = args.slice(2)
}
const profDir = args[0] === '--profile' ? args[1] : undefined
if (args[0] === '--profile' && !profDir) throw new Error('usage: inproc-socket.ts --profile <dir> [seconds] [sample.json]')
const [secondsArg, file] = profDir ? args.slice(2) : args
const seconds = Number(secondsArg ?? 8)
const sample = file ? JSON.parse(readFileSync(file, 'utf8')) : await realSample(exe)
delete sample.recorded_at
const body = JSON.stringify(sample)

/** CPU ms of each thread of a process, by thread name (threads of one name summed) */
function threadsMs(pid: number): Map<string, number> {
  const out = new Map<string, number>()
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
      const name = tid === String(pid) ? 'main (JavaScript, HTTP)' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      out.set(name, (out.get(name) ?? 0) + (Number(f[11]) + Number(f[12])) * 10)
    } catch {
      // the thread ended meanwhile
    }
  }
  return out
}

const command = profDir
  ? [process.execPath, '--smol', '--cpu-prof', '--cpu-prof-interval=250', `--cpu-prof-dir=${profDir}`, join(root, 'src/main.ts'), 'serve']
  : [exe, 'serve']
const { proc, side } = await startVigil(exe, 'socket-ingest', command)
try {
  const { url, devices } = side
  const load = { url, body, devices, connections: devices.length }
  await runJson(join(root, 'scripts/bench/load.ts'), { ...load, duration: 2 }, 60_000)
  const t0 = threadsMs(proc.pid)
  const r = await runJson<{ rps: number; ok: number }>(join(root, 'scripts/bench/load.ts'), { ...load, duration: seconds }, (seconds + 60) * 1000)
  const t1 = threadsMs(proc.pid)
  const per = [...t1].map(([name, ms]) => [name, ((ms - (t0.get(name) ?? 0)) * 1000) / r.ok] as const).filter(([, us]) => us > 0)
  const total = per.reduce((a, [, us]) => a + us, 0)
  console.log(`${Math.round(r.rps)} req/s, ${total.toFixed(1)} µs of hub CPU per request${profDir ? ' (profiled)' : ''}; by thread:`)
  for (const [name, us] of per.sort((a, b) => b[1] - a[1])) console.log(`${us.toFixed(1).padStart(7)} µs  ${name}`)
} finally {
  await stop(proc)
}
