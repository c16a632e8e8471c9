/**
 * The 1-minute rollup tier: what the rollup job writes per sample and where (WAL frames by table and
 * index), what the tier keeps, and what its reads cost, this tree's form (one coded row per
 * device, kind and ten minutes, metrics.packed.ts) beside the earlier ones.
 *
 * `bun scripts/bench/storage-minutes.ts [--sample file.json] [--hours 2.5] [--writes] [--late] [--reads [--devices 100]]`:
 * - `--writes`: at a collector's cadence (storage-cadence.ts, the steady last hour);
 * - `--late`: the paced replay's late data in process (100 devices post samples two hours old, one
 *   round a second for 60 s, the rollup job half-way and at the end);
 * - `--reads`: a 1-minute tier of `devices` devices × 3 days (the tier's default retention) in three
 *   forms, side by side, forms alternating: `rows`, the earlier form (a row per device and minute,
 *   keyed (device_seq, bucket)) read with the statements this tree had before; `timefirst`, the same
 *   rows WITHOUT ROWID keyed (bucket, device_seq), a device's minutes read by one seek per minute;
 *   `packed`, this tree's coded spans read through its stores. Each read's answers are compared
 *   across the forms first.
 * The write side of `timefirst`, of the same rows WITHOUT ROWID keyed (device_seq, bucket), and of
 * the coded spans beside the earlier rows were measured with this bench on the tree before the coded
 * spans, where it made each form on a fresh database (docs/storage.md, "The 1-minute tier: the forms measured").
 */
import type { Database } from 'bun:sqlite'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/connection'
import { migrate } from '../../src/db/migrate'
import { tierColumns, type MetricKind } from '../../src/modules/metrics/metrics.fields'
import { runRollup } from '../../src/modules/metrics/metrics.jobs'
import { encodeSpan, packedKey, SPAN_MS } from '../../src/modules/metrics/metrics.packed'
import { createPackedStore } from '../../src/modules/metrics/metrics.packed.store'
import { createSeriesStore } from '../../src/modules/metrics/metrics.series.store'
import { createMetricsStore } from '../../src/modules/metrics/metrics.store'
import { testApp } from '../../test/helpers/app'
import { postEach, tenantWithDevices } from '../../test/helpers/metrics'
import { cadenceBench, walFrames } from './storage-cadence'
import { evolve, realSample, type Sample } from './storage-samples'

const MIN = 60_000
const KINDS: MetricKind[] = ['hardware', 'network']
const table = (kind: MetricKind) => (kind === 'hardware' ? 'metric_hw_1m' : 'metric_net_1m')
const writeBytes = () => Number(/write_bytes:\s*(\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))![1])
const fmt = (n: number) => `${Math.round(n).toLocaleString('en-US')} B`
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
type Form = 'rows' | 'timefirst' | 'packed'
const FORMS: Form[] = ['rows', 'timefirst', 'packed']

/** what the 1-minute tier keeps, its rows (or coded spans) and index entries, without the pages' free space */
const minuteKept = (sqlite: Database) =>
  sqlite
    .query<{ b: number | null }, []>(
      "SELECT sum(payload) AS b FROM dbstat WHERE name GLOB 'metric_hw_1m*' OR name GLOB 'metric_net_1m*' OR name GLOB 'sqlite_autoindex_metric_hw_1m*' OR name GLOB 'sqlite_autoindex_metric_net_1m*'",
    )
    .get()!.b ?? 0
const frameList = (frames: Map<string, number>, samples: number) =>
  [...frames]
    .sort((a, b) => b[1] - a[1])
    .map(([n, c]) => `${n} ${fmt((c * 4096) / samples)}`)
    .join('; ')

// ---- writes at a collector's cadence ----

async function cadence(base: Sample, hours: number) {
  let kept = 0
  const r = await cadenceBench(base, {
    devices: 100,
    hours,
    rollupFrames: true,
    setup: (db) => {
      const close = db.close.bind(db)
      db.close = () => {
        kept = minuteKept(db.sqlite)
        close()
      }
    },
  })
  console.log(`\nThe rollup job at a collector's cadence (100 devices, one sample each per 10 s, ${hours} h simulated; the steady last hour)`)
  console.log(
    '| rollup per sample | total per sample | the 1m tier keeps per sample | WAL frames of the rollup runs per sample (each copied again by the checkpoint) |',
  )
  console.log('|---|---|---|---|')
  console.log(`| ${fmt(r.steady.rollup)} | ${fmt(r.steady.total)} | ${fmt(kept / r.samples)} | ${frameList(r.rollupFrames!, 100 * 360)} |`)
}

// ---- the paced replay's late data, in process ----

async function late(base: Sample) {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-minutes-late-'))
  try {
    const db = openDatabase(join(dir, 'vigil.db'))
    db.sqlite.run('PRAGMA wal_autocheckpoint = 0')
    const t = testApp({ db, config: { rateLimits: { anonymous: 1e9, free: 1e9, pro: 1e9, enterprise: 1e9 } } as never })
    const T = Date.UTC(2026, 0, 1, 12)
    t.clock.set(T)
    const a = await tenantWithDevices(t, 100)
    const rounds = 60
    const start = T - 2 * 3_600_000 - rounds * 10_000
    const bodies = evolve(base, rounds, start, 10_000, 5).map((s) => JSON.stringify(s))
    const checkpoint = () => db.sqlite.run('PRAGMA wal_checkpoint(TRUNCATE)')
    // the hub's first run, before the replay, as on a running hub
    await runRollup(t.modules.metricsJobs)
    checkpoint()
    let bytes = 0
    const frames = new Map<string, number>()
    const rollup = async () => {
      checkpoint()
      const w = writeBytes()
      await runRollup(t.modules.metricsJobs)
      walFrames(db.sqlite, join(dir, 'vigil.db-wal'), frames)
      checkpoint()
      bytes += writeBytes() - w
    }
    for (let r = 0; r < rounds; r++) {
      await postEach(t, a, () => bodies[r]!)
      t.clock.advance(1000)
      if (r === rounds / 2) await rollup()
    }
    t.clock.advance(60_000)
    await rollup()
    const n = 100 * rounds
    console.log('\nThe rollup job on late data (100 devices post samples two hours old, 10 s apart, one round a second for 60 s; rollup at round 30 and after)')
    console.log('| rollup per sample | WAL frames of the rollup runs, per sample |')
    console.log('|---|---|')
    console.log(`| ${fmt(bytes / n)} | ${frameList(frames, n)} |`)
    db.close()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

// ---- reads ----

type Rows = (number | null)[][]
interface Readers {
  /** [bucket, avg, min, max, n] of cpu_percent and ram_percent: a series at 1m */
  series(seq: number, a: number, b: number): Rows
  /** [bucket, n, ...tierColumns] of one kind: what a summary reads */
  summary(kind: MetricKind, seq: number, a: number, b: number): Rows
  /** [seq, minute, cpu average] of the devices: the fleet's sparklines */
  spark(seqs: number[], a: number, b: number): Rows
  /** [seq, bucket, n, ...tierColumns] of the devices, by device and time: the 10m roll's source */
  source(kind: MetricKind, seqs: number[], a: number, b: number): Rows
}

const SERIES = ['cpu_percent', 'ram_percent'].flatMap((f) => ['avg', 'min', 'max', 'n'].map((s) => `${f}_${s}`))

function readers(sqlite: Database, form: Form): Readers {
  if (form === 'packed') {
    const series = createSeriesStore(sqlite)
    const store = createMetricsStore(sqlite)
    const minutes = createPackedStore(sqlite)
    return {
      series: (seq, a, b) => series.tierRows('hardware', '1m', ['cpu_percent', 'ram_percent'], seq, a, b),
      summary: (kind, seq, a, b) => store.tierValues(kind, '1m', seq, a, b),
      spark: (seqs, a, b) => series.cpuMinutes(seqs, a, b),
      source: (kind, seqs, a, b) => minutes.rowsIn(kind, seqs, a, b),
    }
  }
  const cols = (kind: MetricKind) => ['n', ...tierColumns(kind)]
  const list = (seqs: number[]) => JSON.stringify(seqs)
  if (form === 'rows') {
    // the statements of the tree before the coded spans
    const series = sqlite.prepare(`SELECT bucket, ${SERIES.join(', ')} FROM metric_hw_1m WHERE device_seq = ? AND bucket >= ? AND bucket < ? ORDER BY bucket`)
    const summary = Object.fromEntries(
      KINDS.map((k) => [
        k,
        sqlite.prepare(`SELECT bucket, ${cols(k).join(', ')} FROM ${table(k)} WHERE device_seq = ? AND bucket >= ? AND bucket < ? ORDER BY bucket`),
      ]),
    )
    const spark = sqlite.prepare(
      'SELECT device_seq, bucket, cpu_percent_avg FROM metric_hw_1m WHERE device_seq IN (SELECT value FROM json_each(?1)) AND bucket >= ?2 AND bucket < ?3 AND cpu_percent_n > 0',
    )
    const source = Object.fromEntries(
      KINDS.map((k) => [
        k,
        sqlite.prepare(
          `SELECT device_seq, bucket, ${cols(k).join(', ')} FROM ${table(k)} WHERE device_seq IN (SELECT value FROM json_each(?3)) AND bucket >= ?1 AND bucket < ?2 ORDER BY device_seq, bucket`,
        ),
      ]),
    )
    return {
      series: (seq, a, b) => series.values(seq, a, b) as Rows,
      summary: (kind, seq, a, b) => summary[kind]!.values(seq, a, b) as Rows,
      spark: (seqs, a, b) => spark.values(list(seqs), a, b) as Rows,
      source: (kind, seqs, a, b) => source[kind]!.values(a, b, list(seqs)) as Rows,
    }
  }
  // one seek per minute: the table is keyed time first
  const minutes = `WITH RECURSIVE b(t) AS (SELECT (?2 + ${MIN - 1}) / ${MIN} * ${MIN} UNION ALL SELECT t + ${MIN} FROM b WHERE t + ${MIN} < ?3)`
  const seek = (k: MetricKind, names: string[]) =>
    sqlite.prepare(
      `${minutes} SELECT m.bucket, ${names.map((c) => `m.${c}`).join(', ')} FROM b CROSS JOIN ${table(k)} m ON m.bucket = b.t AND m.device_seq = ?1`,
    )
  const series = seek('hardware', SERIES)
  const summary = Object.fromEntries(KINDS.map((k) => [k, seek(k, cols(k))]))
  const spark = sqlite.prepare(
    'SELECT device_seq, bucket, cpu_percent_avg FROM metric_hw_1m WHERE bucket >= ?2 AND bucket < ?3 AND device_seq IN (SELECT value FROM json_each(?1)) AND cpu_percent_n > 0 ORDER BY device_seq, bucket',
  )
  const source = Object.fromEntries(
    KINDS.map((k) => [
      k,
      sqlite.prepare(
        `SELECT device_seq, bucket, ${cols(k).join(', ')} FROM ${table(k)} WHERE bucket >= ?1 AND bucket < ?2 AND device_seq IN (SELECT value FROM json_each(?3)) ORDER BY device_seq, bucket`,
      ),
    ]),
  )
  return {
    series: (seq, a, b) => series.values(seq, a, b) as Rows,
    summary: (kind, seq, a, b) => summary[kind]!.values(seq, a, b) as Rows,
    spark: (seqs, a, b) => spark.values(list(seqs), a, b) as Rows,
    source: (kind, seqs, a, b) => source[kind]!.values(a, b, list(seqs)) as Rows,
  }
}

/** A tier of `devices` devices × 3 days of minutes in one form, random walks at the precision samples are averaged to. */
function fill(sqlite: Database, form: Form, devices: number, T: number) {
  migrate(sqlite, T)
  if (form === 'timefirst')
    for (const kind of KINDS) {
      const t = table(kind)
      const sql = sqlite.query<{ sql: string }, [string]>('SELECT sql FROM sqlite_master WHERE name = ?').get(t)!.sql
      sqlite.run(
        `${sql.replace(`CREATE TABLE \`${t}\``, `CREATE TABLE \`${t}_tf\``).replace('PRIMARY KEY(`device_seq`, `bucket`)', 'PRIMARY KEY(`bucket`, `device_seq`)')} WITHOUT ROWID`,
      )
      sqlite.run(`DROP TABLE ${t}`)
      sqlite.run(`ALTER TABLE ${t}_tf RENAME TO ${t}`)
    }
  sqlite.run('PRAGMA foreign_keys = OFF')
  for (const kind of KINDS) {
    const cols = tierColumns(kind)
    const n = 1 + cols.length
    const ins =
      form === 'packed'
        ? sqlite.prepare(`INSERT INTO ${table(kind)}_packed (key, span, device_seq, data) VALUES (?, ?, ?, ?)`)
        : sqlite.prepare(
            `INSERT INTO ${table(kind)} (device_seq, bucket, n, ${cols.join(', ')}) VALUES (${Array(n + 2)
              .fill('?')
              .join(', ')})`,
          )
    sqlite.transaction(() => {
      for (let span = T - 3 * 1440 * MIN; span < T; span += SPAN_MS) {
        for (let d = 1; d <= devices; d++) {
          const rows: Rows = []
          for (let m = 0; m < 10; m++) {
            const row: (number | null)[] = [span + m * MIN, 6]
            for (let c = 0; c < cols.length; c++) {
              const name = cols[c]!
              if (name.startsWith('gpu') || name.startsWith('cpu_temp')) row.push(null)
              else if (name.endsWith('_n')) row.push(6)
              else
                row.push(
                  Math.round((50 + 30 * Math.sin((span + m * MIN) / 3e6 + d + c) + ((d * 7919 + c * 104729 + span / MIN + m) % 1000) / 1000) * 600) / 6000,
                )
            }
            rows.push(row)
          }
          if (form === 'packed') ins.run(packedKey(span, d), span, d, encodeSpan(span, rows, n))
          else for (const r of rows) ins.run(d, ...r)
        }
      }
    })()
  }
  sqlite.run('PRAGMA foreign_keys = ON')
}

async function reads(devices: number) {
  const T = Date.UTC(2026, 0, 4)
  const dir = mkdtempSync(join(tmpdir(), 'vigil-minutes-reads-'))
  try {
    const dbs = FORMS.map((form) => {
      const db = openDatabase(join(dir, `${form}.db`))
      fill(db.sqlite, form, devices, T)
      db.sqlite.run('PRAGMA wal_checkpoint(TRUNCATE)')
      return { form, db, r: readers(db.sqlite, form) }
    })
    const seqs = Array.from({ length: devices }, (_, i) => i + 1)
    const H = 3_600_000
    const cases: Record<string, (r: Readers, i: number) => unknown> = {
      'series of 6 h at 1m (one device, two fields)': (r, i) => r.series(1 + (i % devices), T - 6 * H - 30_000, T),
      'series of 24 h at 1m': (r, i) => r.series(1 + (i % devices), T - 24 * H - 30_000, T),
      'a summary of 6 h (both kinds, every column)': (r, i) => [
        r.summary('hardware', 1 + (i % devices), T - 6 * H, T),
        r.summary('network', 1 + (i % devices), T - 6 * H, T),
      ],
      [`the fleet's CPU sparklines (${devices} devices, 60 minutes)`]: (r) => r.spark(seqs, T - H, T),
      [`the 10m roll of an hour from 1m (${devices} devices, both kinds)`]: (r) => [
        r.source('hardware', seqs, T - 2 * H, T - H),
        r.source('network', seqs, T - 2 * H, T - H),
      ],
    }
    for (const [name, f] of Object.entries(cases)) {
      const want = JSON.stringify(f(dbs[0]!.r, 3))
      for (const d of dbs.slice(1))
        if (JSON.stringify(f(d.r, 3)) !== want)
          throw new Error(`${name}: ${d.form} answers differently: ${JSON.stringify(f(d.r, 3)).slice(0, 300)} against ${want.slice(0, 300)}`)
    }
    console.log(`\nReads of the 1m tier, ${devices} devices × 3 days, in process, forms alternating (µs, p50 / p99 of 400; load average ${load()})`)
    console.log(`| read | ${FORMS.join(' | ')} |`)
    console.log(`|---|${FORMS.map(() => '---').join('|')}|`)
    for (const [name, f] of Object.entries(cases)) {
      const us = new Map<string, number[]>(FORMS.map((f) => [f, []]))
      for (let i = 0; i < 440; i++)
        for (const d of dbs) {
          const s = performance.now()
          f(d.r, i)
          if (i >= 40) us.get(d.form)!.push((performance.now() - s) * 1000)
        }
      const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * p)]!
      console.log(`| ${name} | ${FORMS.map((f) => `${Math.round(q(us.get(f)!, 0.5))} / ${Math.round(q(us.get(f)!, 0.99))}`).join(' | ')} |`)
    }
    for (const d of dbs) {
      console.log(`${d.form}: the tier keeps ${fmt(minuteKept(d.db.sqlite) / (devices * 3 * 1440 * 6))} per sample (both kinds, 6 samples a minute)`)
      d.db.close()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.main) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name)
    return i === -1 ? undefined : process.argv[i + 1]
  }
  const all = !['--writes', '--late', '--reads'].some((f) => process.argv.includes(f))
  const sample = async () => {
    const file = arg('--sample')
    const base = file ? (JSON.parse(readFileSync(file, 'utf8')) as Sample) : await realSample(arg('--vigil') ?? join(import.meta.dir, '../../dist/vigil'))
    delete base.recorded_at
    return base
  }
  if (all || process.argv.includes('--reads')) await reads(Number(arg('--devices') ?? 100))
  if (all || process.argv.includes('--late')) {
    await late(await sample())
    console.log(`load average ${load()}`)
  }
  if (all || process.argv.includes('--writes')) {
    await cadence(await sample(), Number(arg('--hours') ?? 2.5))
    console.log(`load average ${load()}`)
  }
}
