/**
 * In-process CPU cost of one ingest request with the real sample, through the whole app (no
 * sockets): `bun scripts/bench/inproc-real.ts [rounds] [sample.json]`. 200 devices (20 tenants × 10
 * keys) each post the sample (without its recorded_at) once per round, all of a round at once, so
 * they share group commits as under load; a WAL checkpoint runs between rounds, outside the measure.
 * Steadier than the socket bench on a busy machine; the sample is what `dist/vigil agent --once`
 * prints, or the file given.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/connection'
import { inprocIngestWorld } from './inproc-world'
import { realSample } from './storage-samples'

const rounds = Number(process.argv[2] ?? 100)
const file = process.argv[3]
const sample = file ? JSON.parse(readFileSync(file, 'utf8')) : await realSample(join(import.meta.dir, '../../dist/vigil'))
delete sample.recorded_at
const body = JSON.stringify(sample)

const dir = mkdtempSync(join(tmpdir(), 'vigil-inproc-'))
mkdirSync(dir, { recursive: true })
const db = openDatabase(join(dir, 'vigil.db'))
const { round, devices } = await inprocIngestWorld(db, body)

for (let i = 0; i < 10; i++) await round()
const perRound: number[] = []
for (let i = 0; i < rounds; i++) {
  db.sqlite.run('PRAGMA wal_checkpoint(TRUNCATE)')
  const c0 = process.cpuUsage()
  await round()
  const c = process.cpuUsage(c0)
  perRound.push((c.user + c.system) / devices)
}
db.close()
rmSync(dir, { recursive: true, force: true })
// the mean counts the rounds a garbage collection fell in, which the median leaves out: what allocation costs shows there
const mean = perRound.reduce((a, b) => a + b, 0) / perRound.length
const sorted = perRound.sort((a, b) => a - b)
const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(1)
console.log(
  `${at(0.5)} µs CPU per ingest request (median of ${rounds} rounds of ${devices}; p25 ${at(0.25)}, p75 ${at(0.75)}; mean ${mean.toFixed(1)}), body ${body.length} B`,
)
