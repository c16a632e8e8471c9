/**
 * Start-up time, idle RSS and size of dist/vigil: median of several runs, each on a new
 * empty data dir (so it includes creating and migrating the database).
 * Usage: bun run scripts/startup.ts [runs] [executable]   (prints a small table; the
 * executable defaults to dist/vigil, built if stale: give another to compare builds)
 */
import { readFileSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { ensureBinary, freePort, tempDir } from '../test/helpers/binary'

const runs = Number(process.argv[2] ?? 7)
const bin = process.argv[3] ? resolve(process.argv[3]) : ensureBinary()
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024

const startMs: number[] = []
const idleRss: number[] = []
for (let i = 0; i < runs; i++) {
  const cwd = tempDir('vigil-startup-')
  const port = freePort()
  const t0 = performance.now()
  const proc = Bun.spawn([bin, 'serve'], {
    cwd,
    env: { PATH: process.env.PATH ?? '', VIGIL_PORT: String(port), VIGIL_HOST: '127.0.0.1', VIGIL_DATA_DIR: join(cwd, 'data'), VIGIL_LOG_LEVEL: 'warn' },
    stdout: 'ignore',
    stderr: 'ignore',
  })
  for (let tries = 0; tries < 400; tries++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) break
    } catch {}
    await Bun.sleep(5)
  }
  startMs.push(performance.now() - t0)
  await Bun.sleep(1000) // let it settle before reading idle memory
  idleRss.push(rssMb(proc.pid))
  proc.kill('SIGTERM')
  await proc.exited
}
const size = statSync(bin).size / 1024 / 1024
console.log(`| metric | median of ${runs} runs |`)
console.log('|---|---|')
console.log(`| start-up to first 200 on /health (empty data dir) | ${median(startMs).toFixed(0)} ms |`)
console.log(`| idle RSS after start | ${median(idleRss).toFixed(1)} MB |`)
console.log(`| executable size | ${size.toFixed(1)} MB |`)
