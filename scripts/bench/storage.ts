/**
 * Bytes kept per sample and read latencies, compact records (the form from ingest on) against the sealed long-lived form, side by
 * side in one run: `bun run bench --storage-only` (or `bun scripts/bench/storage.ts [dist/vigil]`).
 *
 * For the real sample `vigil agent --once` prints on this machine and a large server made from
 * it (32 cores, 12 disks, 20 interfaces), one device's samples every 10 s go through the real
 * ingest path into a database file; the file is measured after VACUUM as compact records, then again after
 * the sealing job, less the empty database. Reads are timed in process on the same data.
 */
import { Database } from 'bun:sqlite'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/connection'
import { createBlockStore } from '../../src/modules/metrics/metrics.block.store'
import { createHotStore } from '../../src/modules/metrics/metrics.hot.store'
import { testApp } from '../../test/helpers/app'
import { tenantWithDevices } from '../../test/helpers/metrics'
import { evolve, largeServer, realSample, type Sample } from './storage-samples'
import { ingestVsGroupCommit } from './storage-ingest'
import { writesBench } from './storage-writes'
import { breakdown } from './storage-breakdown'

const root = join(import.meta.dir, '../..')
// `--kept-only`: the bytes kept and the reads alone (about a minute), without the paced runs, ingest and the in-process split
const keptOnly = process.argv.includes('--kept-only')
const vigil = process.argv.slice(2).find((a, i, all) => !a.startsWith('--') && all[i - 1] !== '--sample') ?? join(root, 'dist/vigil')
const T0 = Date.UTC(2026, 0, 1)
const HOUR = 3_600_000

const p = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))]!

async function timed(n: number, f: () => Promise<unknown>) {
  for (let i = 0; i < 10; i++) await f()
  const ms: number[] = []
  for (let i = 0; i < n; i++) {
    const t = performance.now()
    await f()
    ms.push(performance.now() - t)
  }
  return { p50: p(ms, 0.5), p99: p(ms, 0.99) }
}

async function measure(name: string, base: Sample, hours: number, perRequest: number) {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-storage-'))
  try {
    const file = join(dir, 'vigil.db')
    const db = openDatabase(file)
    const t = testApp({ db, config: { rateLimits: { anonymous: 1e9, free: 1e9, pro: 1e9, enterprise: 1e9 } } as never })
    const a = await tenantWithDevices(t)
    // VACUUM on a connection of its own: the hub's has the temp view named like the raw table,
    // which VACUUM's rebuilding of the raw table's index would take for the table
    const size = () => {
      db.sqlite.run('PRAGMA wal_checkpoint(TRUNCATE)')
      const v = new Database(file)
      v.run('VACUUM')
      v.run('PRAGMA wal_checkpoint(TRUNCATE)')
      v.close()
      // the newest samples' records and the sealed blocks live in files beside the database
      return statSync(file).size + createHotStore(db.sqlite).stats().bytes + createBlockStore(db.sqlite).fileBytes()
    }
    t.clock.set(T0 + (hours + 2) * HOUR)
    const empty = size()
    const count = (hours * HOUR) / 10_000
    const samples = evolve(base, count, T0, 10_000, 11)
    const json = JSON.stringify(samples[0]).length
    for (let i = 0; i < samples.length; i += perRequest) {
      const r = await t.request('POST', '/v1/metrics/bulk', { body: { items: samples.slice(i, i + perRequest) }, headers: a.keyHeaders })
      if (r.status !== 201 || r.body.rejected) throw new Error(`bulk ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`)
    }
    const headers = { authorization: `Bearer ${await t.modules.users.tokens.sign({ userId: a.userId, clientId: a.clientId, role: 'user' })}` }
    const get = async (path: string) => {
      const r = await t.handle(new Request(`http://localhost${path}`, { headers }))
      if (r.status !== 200) throw new Error(`${path}: ${r.status}`)
      await r.arrayBuffer()
    }
    const page = () => get(`/v1/metrics/hardware/${a.deviceId}?limit=120&offset=${Math.floor(Math.random() * (count - 120))}`)
    const day = `/v1/metrics/series/${a.deviceId}?kind=hardware&fields=cpu_per_core,disk_partitions&start=${new Date(T0).toISOString()}&end=${new Date(T0 + hours * HOUR).toISOString()}`
    const rows = { bytes: (size() - empty) / count, page: await timed(200, page), nested: await timed(20, () => get(day)) }
    const started = performance.now()
    await t.modules.sealer.run()
    const sealMs = (performance.now() - started) / (count / 60)
    const sealed = { bytes: (size() - empty) / count, page: await timed(200, page), nested: await timed(20, () => get(day)) }
    db.sqlite.close()
    return { name, json, count, hours, rows, sealed, sealMs }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

// `--sample <file>`: a sample as `vigil agent --once` printed it, so runs of two trees measure the same one
const sampleAt = process.argv.indexOf('--sample')
const real = sampleAt > 0 ? (JSON.parse(await Bun.file(process.argv[sampleAt + 1]!).text()) as Sample) : await realSample(vigil)
delete real.recorded_at
const scratch = mkdtempSync(join(tmpdir(), 'vigil-writes-'))
let ingest: Awaited<ReturnType<typeof ingestVsGroupCommit>> | undefined
const none = { samples: 0, perSample: 0, blocks: 0 }
const written = { sealed: none, rows: none, spread: none }
if (!keptOnly)
  try {
    // the same paced load twice: samples two hours old (sealed within the window) and samples of now (compact records only)
    written.sealed = await writesBench(vigil, join(scratch, 'sealed'), real, { devices: 100, seconds: 60, hoursAgo: 2 })
    written.rows = await writesBench(vigil, join(scratch, 'rows'), real, { devices: 100, seconds: 60, hoursAgo: 0 })
    // each device at its own moment of the second, as collectors started at different times post
    written.spread = await writesBench(vigil, join(scratch, 'spread'), real, { devices: 100, seconds: 60, hoursAgo: 0, spread: true })
    ingest = await ingestVsGroupCommit(vigil, join(scratch, 'ingest'), JSON.stringify(real), { devices: 200, rounds: 3, seconds: 5 })
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
// the same bytes split by phase, in process (one group commit per round, a checkpoint after each)
const phases = keptOnly
  ? []
  : [
      { name: 'real sample', ...(await breakdown(real, { devices: 100, rounds: 60, hoursAgo: 2 })) },
      { name: 'large server', ...(await breakdown(largeServer(real), { devices: 100, rounds: 60, hoursAgo: 2 })) },
    ]
const results = [
  await measure('real sample of this machine', real, 24, 200),
  await measure('large server (32 cores, 12 disks, 20 interfaces)', largeServer(real), 6, 50),
]
const f = (x: number) => x.toFixed(2)
console.log(
  `\nvigil bench, storage — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}, load average ${(await Bun.file('/proc/loadavg').text()).split(' ')[0]}\n`,
)
console.log(
  '| sample | JSON sent | kept as compact records | kept sealed | per device-day at 10 s (sealed) | page of 120 p50/p99 records → sealed | nested families over the range p50/p99 records → sealed | sealing CPU per block |',
)
console.log('|---|---|---|---|---|---|---|---|')
for (const r of results) {
  console.log(
    `| ${r.name} | ${r.json} B | ${Math.round(r.rows.bytes)} B | ${Math.round(r.sealed.bytes)} B | ${((r.sealed.bytes * 8640) / 1e6).toFixed(2)} MB | ${f(r.rows.page.p50)}/${f(r.rows.page.p99)} → ${f(r.sealed.page.p50)}/${f(r.sealed.page.p99)} ms | ${f(r.rows.nested.p50)}/${f(r.rows.nested.p99)} → ${f(r.sealed.nested.p50)}/${f(r.sealed.nested.p99)} ms (${r.hours} h) | ${f(r.sealMs)} ms |`,
  )
}
if (keptOnly) process.exit(0)
console.log(
  '\n| bytes written to the disk per sample (real sample; write_bytes of /proc/PID/io: 100 devices × 1 sample/s for 60 s, all at once each second unless said, then 100 s for the sealing job and the checkpoints, each device posting a sample every 10 s meanwhile, its bytes counted and the sample not) | result |',
)
console.log('|---|---|')
console.log(
  `| samples two hours old (sealed within the window) | ${Math.round(written.sealed.perSample)} B (${written.sealed.samples} samples, ${written.sealed.blocks} blocks) |`,
)
console.log(`| samples of now (compact records only) | ${Math.round(written.rows.perSample)} B (${written.rows.samples} samples) |`)
console.log(
  `| samples of now, each device posting at its own moment of the second | ${Math.round(written.spread.perSample)} B (${written.spread.samples} samples) |`,
)
console.log(
  '\n| bytes written per sample by phase, in process (write_bytes of /proc/self/io; 100 devices × 60 rounds, a checkpoint after each) | compact record | ingest | rollup | sealing | emptying the hot table | total |',
)
console.log('|---|---|---|---|---|---|---|')
for (const p of phases) {
  const total = p.ingest + p.rollup + p.seal + p.dropHot
  console.log(
    `| ${p.name} | ${p.record} B | ${Math.round(p.ingest)} B | ${Math.round(p.rollup)} B | ${Math.round(p.seal)} B | ${Math.round(p.dropHot)} B | ${Math.round(total)} B |`,
  )
}
if (ingest) {
  console.log('\n| ingest of the real sample, 200 devices (medians of 3 alternating rounds of 5 s) | req/s | server CPU per request | p99 |')
  console.log('|---|---|---|---|')
  console.log(`| dist/vigil | ${Math.round(ingest.vigil.rps)} | ${Math.round(ingest.vigil.cpuUs)} µs | ${ingest.vigil.p99} ms |`)
  console.log(`| group-commit baseline (bare-group.ts) | ${Math.round(ingest.bare.rps)} | ${Math.round(ingest.bare.cpuUs)} µs | ${ingest.bare.p99} ms |`)
  console.log(`| ratio | ${ingest.ratio.toFixed(2)} (rounds: ${ingest.ratios.map((r) => r.toFixed(2)).join(', ')}) | | |`)
}
