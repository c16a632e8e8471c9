/**
 * The 1-minute rollup tier in three forms, side by side in one run: what each writes per sample and
 * where (WAL frames by table and index), what it keeps, and what its reads cost.
 *
 * - `rows`: main's form, a rowid table with PRIMARY KEY (device_seq, bucket), one row per device,
 *   kind and minute;
 * - `timefirst`: the same rows in a WITHOUT ROWID table keyed (bucket, device_seq): a run's rows
 *   land together at the end of the tree; a device's reads seek bucket by bucket;
 * - `compact`: one row per device, kind and ten minutes (keyed time first) holding the ten
 *   1-minute rows coded (column by column, each number as Float64 XOR the bucket before's, a null
 *   map, zstd). Written here beside a copy of the rows kept in memory (a temporary table of the
 *   same name, which the rollup job's statements resolve first), so that the job runs as it is
 *   and only the coded rows reach the disk.
 *
 * `bun scripts/bench/storage-minutes.ts [--sample file.json] [--hours 2.5] [--forms rows,timefirst,devicefirst,compact]
 * [--writes] [--late] [--reads [--devices 100]]`: at a collector's cadence (storage-cadence.ts, the
 * steady last hour), the paced replay's late data in process (100 devices post samples two hours
 * old, one round a second for 60 s, rollup runs half-way and at the end), and the reads on a
 * 1-minute tier of `devices` devices × 3 days (the default retention of the tier).
 */
import type { Database } from 'bun:sqlite'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/connection'
import { migrate } from '../../src/db/migrate'
import { tierColumns, type MetricKind } from '../../src/modules/metrics/metrics.fields'
import { zstdCompress, zstdDecompress } from '../../src/modules/metrics/metrics.hot.zstd'
import { runRollup } from '../../src/modules/metrics/metrics.jobs'
import { createRollupStore, type Fold } from '../../src/modules/metrics/metrics.rollup.store'
import { testApp } from '../../test/helpers/app'
import { tenantWithDevices } from '../../test/helpers/metrics'
import { cadenceBench, walFrames } from './storage-cadence'
import { evolve, realSample, type Sample } from './storage-samples'

const MIN = 60_000
const SPAN = 10 * MIN
const KINDS: MetricKind[] = ['hardware', 'network']
const table = (kind: MetricKind) => (kind === 'hardware' ? 'metric_hw_1m' : 'metric_net_1m')
const writeBytes = () => Number(/write_bytes:\s*(\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))![1])
const fmt = (n: number) => `${Math.round(n).toLocaleString('en-US')} B`
type Form = 'rows' | 'timefirst' | 'devicefirst' | 'compact'

// ---- the coded row of `compact` ----

/** [bucket, n, ...tierColumns] rows of one device and ten minutes → bytes (see the header). */
export function encodeMinutes(span: number, rows: (number | null)[][], cols: number): Uint8Array {
  let mask = 0
  for (const r of rows) mask |= 1 << ((r[0]! - span) / MIN)
  const k = rows.length
  const nullBytes = Math.ceil((k * cols) / 8)
  const buf = new ArrayBuffer(2 + nullBytes + k * cols * 8)
  const view = new DataView(buf)
  const bytes = new Uint8Array(buf)
  view.setUint16(0, mask, true)
  let o = 2 + nullBytes
  let bit = 0
  const prev = new BigUint64Array(1)
  const f = new Float64Array(1)
  const u = new BigUint64Array(f.buffer)
  for (let c = 0; c < cols; c++) {
    prev[0] = 0n
    for (let i = 0; i < k; i++, bit++) {
      const v = rows[i]![1 + c]
      if (v === null || v === undefined) {
        bytes[2 + (bit >> 3)]! |= 1 << (bit & 7)
        continue
      }
      f[0] = v
      view.setBigUint64(o, u[0]! ^ prev[0]!, true)
      prev[0] = u[0]!
      o += 8
    }
  }
  return zstdCompress(bytes.subarray(0, o), 3)
}

export function decodeMinutes(span: number, data: Uint8Array, cols: number): (number | null)[][] {
  const bytes = zstdDecompress(data)
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const mask = view.getUint16(0, true)
  const buckets: number[] = []
  for (let i = 0; i < 10; i++) if (mask & (1 << i)) buckets.push(span + i * MIN)
  const k = buckets.length
  const rows = buckets.map((b) => [b] as (number | null)[])
  let o = 2 + Math.ceil((k * cols) / 8)
  let bit = 0
  const f = new Float64Array(1)
  const u = new Uint32Array(f.buffer)
  for (let c = 0; c < cols; c++) {
    let lo = 0
    let hi = 0
    for (let i = 0; i < k; i++, bit++) {
      if (bytes[2 + (bit >> 3)]! & (1 << (bit & 7))) {
        rows[i]!.push(null)
        continue
      }
      lo ^= view.getUint32(o, true)
      hi ^= view.getUint32(o + 4, true)
      u[0] = lo
      u[1] = hi
      rows[i]!.push(f[0]!)
      o += 8
    }
  }
  return rows
}

// ---- the forms, made on a fresh database ----

/** The rows WITHOUT ROWID, keyed (bucket, device_seq) or as today (device_seq, bucket). */
const withoutRowid = (first: 'bucket' | 'device_seq') => (sqlite: Database) => {
  for (const kind of KINDS) {
    const t = table(kind)
    const sql = sqlite.query<{ sql: string }, [string]>('SELECT sql FROM sqlite_master WHERE name = ?').get(t)!.sql
    const made = sql
      .replace(`CREATE TABLE \`${t}\``, `CREATE TABLE \`${t}_tf\``)
      .replace('PRIMARY KEY(`device_seq`, `bucket`)', first === 'bucket' ? 'PRIMARY KEY(`bucket`, `device_seq`)' : 'PRIMARY KEY(`device_seq`, `bucket`)')
    sqlite.run(`${made} WITHOUT ROWID`)
    sqlite.run(`DROP TABLE ${t}`)
    sqlite.run(`ALTER TABLE ${t}_tf RENAME TO ${t}`)
  }
  // the store's pruning deletes by rowid, which these tables lack
  const store = createRollupStore(sqlite)
  const prune = store.pruneBatch.bind(store)
  store.pruneBatch = (kind, level, seqs, cutoff) =>
    level === 1
      ? sqlite.run(`DELETE FROM ${table(kind)} WHERE bucket < ? AND device_seq IN (SELECT value FROM json_each(?))`, [cutoff, JSON.stringify(seqs)]).changes
      : prune(kind, level, seqs, cutoff)
}

function compact(sqlite: Database) {
  for (const kind of KINDS) {
    const t = table(kind)
    const sql = sqlite.query<{ sql: string }, [string]>('SELECT sql FROM sqlite_master WHERE name = ?').get(t)!.sql
    // the rows in memory, for the job's own statements (the 10m roll reads them); only the coded rows reach the disk
    sqlite.run(sql.replace('CREATE TABLE', 'CREATE TEMP TABLE').replace(/,\s*FOREIGN KEY[^\n]*\n/, '\n'))
    sqlite.run(
      `CREATE TABLE main.${t}_c (span INTEGER NOT NULL, device_seq INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (span, device_seq)) WITHOUT ROWID`,
    )
  }
  const store = createRollupStore(sqlite)
  const roll = store.roll.bind(store)
  const cols = (kind: MetricKind) => 1 + tierColumns(kind).length
  const stmts = Object.fromEntries(
    KINDS.map((kind) => {
      const t = table(kind)
      return [
        kind,
        {
          rows: sqlite.prepare(
            `SELECT device_seq, bucket, n, ${tierColumns(kind).join(', ')} FROM temp.${t} WHERE device_seq IN (SELECT value FROM json_each(?3)) AND bucket >= ?1 AND bucket < ?2 ORDER BY device_seq, bucket`,
          ),
          get: sqlite.prepare(`SELECT data FROM main.${t}_c WHERE span = ? AND device_seq = ?`),
          put: sqlite.prepare(`INSERT INTO main.${t}_c (span, device_seq, data) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET data = excluded.data`),
        },
      ]
    }),
  )
  store.roll = (kind: MetricKind, tier: number, seqs: number[], a: number, b: number, fold: Fold) => {
    roll(kind, tier, seqs, a, b, fold)
    if (tier !== 0) return
    const s = stmts[kind]!
    sqlite.transaction(() => {
      for (let span = Math.floor(a / SPAN) * SPAN; span < b; span += SPAN) {
        const all = s.rows.values(span, span + SPAN, JSON.stringify(seqs)) as (number | null)[][]
        for (let i = 0; i < all.length; ) {
          let j = i
          while (j < all.length && all[j]![0] === all[i]![0]) j++
          const dev = all[i]![0]!
          const data = encodeMinutes(
            span,
            all.slice(i, j).map((r) => r.slice(1)),
            cols(kind),
          )
          const old = s.get.get(span, dev) as { data: Uint8Array } | null
          if (!old || Buffer.compare(Buffer.from(old.data), Buffer.from(data)) !== 0) s.put.run(span, dev, data)
          i = j
        }
      }
    })()
  }
}

const FORMS: Record<Form, ((sqlite: Database) => void) | undefined> = {
  rows: undefined,
  timefirst: withoutRowid('bucket'),
  devicefirst: withoutRowid('device_seq'),
  compact,
}

const minuteKept = (sqlite: Database) =>
  sqlite
    .query<{ b: number | null }, []>(
      "SELECT sum(payload) AS b FROM dbstat WHERE name GLOB 'metric_hw_1m*' OR name GLOB 'metric_net_1m*' OR name GLOB 'sqlite_autoindex_metric_hw_1m*' OR name GLOB 'sqlite_autoindex_metric_net_1m*'",
    )
    .get()!.b ?? 0

// ---- writes at a collector's cadence ----

async function cadence(base: Sample, forms: Form[], hours: number) {
  console.log(`\nThe rollup job at a collector's cadence (100 devices, one sample each per 10 s, ${hours} h simulated; the steady last hour)`)
  console.log(
    '| form | rollup per sample | total per sample | the 1m tier keeps per sample | WAL frames of the rollup runs (per sample, each copied again by the checkpoint) |',
  )
  console.log('|---|---|---|---|---|')
  for (const form of forms) {
    let kept = 0
    const r = await cadenceBench(base, {
      devices: 100,
      hours,
      rollupFrames: true,
      setup: (db) => {
        migrate(db.sqlite, Date.now())
        FORMS[form]?.(db.sqlite)
        const close = db.close.bind(db)
        db.close = () => {
          kept = minuteKept(db.sqlite)
          close()
        }
      },
    })
    const samples = 100 * 360
    const frames = [...r.rollupFrames!]
      .sort((a, b) => b[1] - a[1])
      .map(([n, c]) => `${n} ${fmt((c * 4096) / samples)}`)
      .join('; ')
    console.log(`| ${form} | ${fmt(r.steady.rollup)} | ${fmt(r.steady.total)} | ${fmt(kept / r.samples)} | ${frames} |`)
  }
}

// ---- the paced replay's late data, in process ----

async function late(base: Sample, forms: Form[]) {
  console.log('\nThe rollup job on late data (100 devices post samples two hours old, 10 s apart, one round a second for 60 s; rollup at round 30 and after)')
  console.log('| form | rollup per sample | WAL frames of the rollup runs, per sample |')
  console.log('|---|---|---|')
  for (const form of forms) {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-minutes-late-'))
    try {
      const db = openDatabase(join(dir, 'vigil.db'))
      db.sqlite.run('PRAGMA wal_autocheckpoint = 0')
      migrate(db.sqlite, Date.now())
      FORMS[form]?.(db.sqlite)
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
        await Promise.all(
          a.deviceIds.map((id) =>
            t.handle(
              new Request('http://localhost/v1/metrics/batch', {
                method: 'POST',
                headers: { ...a.keyHeaders, 'x-device-id': id, 'content-type': 'application/json' },
                body: bodies[r]!,
              }),
            ),
          ),
        )
        t.clock.advance(1000)
        if (r === rounds / 2) await rollup()
      }
      t.clock.advance(60_000)
      await rollup()
      const n = 100 * rounds
      const list = [...frames]
        .sort((x, y) => y[1] - x[1])
        .map(([name, c]) => `${name} ${fmt((c * 4096) / n)}`)
        .join('; ')
      console.log(`| ${form} | ${fmt(bytes / n)} | ${list} |`)
      db.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

// ---- reads ----

/** One device's 1-minute rows of `kind` in [from, to), in each form: [bucket, n, ...tierColumns]. */
function readers(sqlite: Database, form: Form, kind: MetricKind) {
  const t = table(kind)
  const cols = tierColumns(kind)
  const buckets = `WITH RECURSIVE b(t) AS (SELECT (?2 + ${MIN - 1}) / ${MIN} * ${MIN} UNION ALL SELECT t + ${MIN} FROM b WHERE t + ${MIN} < ?3)`
  const spans = `WITH RECURSIVE s(t) AS (SELECT ?2 - ?2 % ${SPAN} UNION ALL SELECT t + ${SPAN} FROM s WHERE t + ${SPAN} < ?3)`
  if (form === 'rows' || form === 'devicefirst') {
    const q = sqlite.prepare(`SELECT bucket, n, ${cols.join(', ')} FROM ${t} WHERE device_seq = ?1 AND bucket >= ?2 AND bucket < ?3 ORDER BY bucket`)
    const spark = sqlite.prepare(
      `SELECT device_seq, bucket, cpu_percent_avg FROM ${t} WHERE device_seq IN (SELECT value FROM json_each(?1)) AND bucket >= ?2 AND bucket < ?3 AND cpu_percent_n > 0`,
    )
    const src = sqlite.prepare(
      `SELECT device_seq, bucket, n, ${cols.join(', ')} FROM ${t} WHERE device_seq IN (SELECT value FROM json_each(?3)) AND bucket >= ?1 AND bucket < ?2 ORDER BY device_seq, bucket`,
    )
    return {
      device: (seq: number, a: number, b: number) => q.values(seq, a, b),
      spark: (seqs: string, a: number, b: number) => spark.values(seqs, a, b),
      source: (seqs: string, a: number, b: number) => src.values(a, b, seqs),
    }
  }
  if (form === 'timefirst') {
    const q = sqlite.prepare(
      `${buckets} SELECT m.bucket, m.n, ${cols.map((c) => `m.${c}`).join(', ')} FROM b CROSS JOIN ${t} m ON m.bucket = b.t AND m.device_seq = ?1`,
    )
    const spark = sqlite.prepare(
      `SELECT device_seq, bucket, cpu_percent_avg FROM ${t} WHERE bucket >= ?2 AND bucket < ?3 AND device_seq IN (SELECT value FROM json_each(?1)) AND cpu_percent_n > 0`,
    )
    const src = sqlite.prepare(
      `SELECT device_seq, bucket, n, ${cols.join(', ')} FROM ${t} WHERE bucket >= ?1 AND bucket < ?2 AND device_seq IN (SELECT value FROM json_each(?3)) ORDER BY device_seq, bucket`,
    )
    return {
      device: (seq: number, a: number, b: number) => q.values(seq, a, b),
      spark: (seqs: string, a: number, b: number) => spark.values(seqs, a, b),
      source: (seqs: string, a: number, b: number) => src.values(a, b, seqs),
    }
  }
  const n = 1 + cols.length
  const q = sqlite.prepare(`${spans} SELECT c.span, c.data FROM s CROSS JOIN ${t}_c c ON c.span = s.t AND c.device_seq = ?1`)
  const range = sqlite.prepare(
    `SELECT device_seq, span, data FROM ${t}_c WHERE span >= ?1 - ?1 % ${SPAN} AND span < ?2 AND device_seq IN (SELECT value FROM json_each(?3)) ORDER BY device_seq, span`,
  )
  const within = (rows: (number | null)[][], a: number, b: number) => rows.filter((r) => r[0]! >= a && r[0]! < b)
  return {
    device: (seq: number, a: number, b: number) =>
      (q.values(seq, a, b) as [number, Uint8Array][]).flatMap(([span, data]) => within(decodeMinutes(span, data, n), a, b)),
    spark: (seqs: string, a: number, b: number) =>
      (range.values(a, b, seqs) as [number, number, Uint8Array][]).flatMap(([dev, span, data]) =>
        within(decodeMinutes(span, data, n), a, b).map((r) => [dev, r[0], r[2]]),
      ),
    source: (seqs: string, a: number, b: number) =>
      (range.values(a, b, seqs) as [number, number, Uint8Array][]).flatMap(([dev, span, data]) =>
        within(decodeMinutes(span, data, n), a, b).map((r) => [dev, ...r]),
      ),
  }
}

/** A tier of `devices` devices × 3 days of minutes, random walks at the precision samples are averaged to. */
function fill(sqlite: Database, form: Form, devices: number, T: number) {
  migrate(sqlite, T)
  FORMS[form]?.(sqlite)
  sqlite.run('PRAGMA foreign_keys = OFF')
  for (const kind of KINDS) {
    const cols = tierColumns(kind)
    const n = 1 + cols.length
    const t = table(kind)
    const ins =
      form === 'compact'
        ? sqlite.prepare(`INSERT INTO ${t}_c (span, device_seq, data) VALUES (?, ?, ?)`)
        : sqlite.prepare(
            `INSERT INTO ${t} (device_seq, bucket, n, ${cols.join(', ')}) VALUES (${Array(n + 2)
              .fill('?')
              .join(', ')})`,
          )
    const minutes = 3 * 1440
    sqlite.transaction(() => {
      for (let span = T - minutes * MIN; span < T; span += SPAN) {
        for (let d = 1; d <= devices; d++) {
          const rows: (number | null)[][] = []
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
          if (form === 'compact') ins.run(span, d, encodeMinutes(span, rows, n))
          else for (const r of rows) ins.run(d, ...r)
        }
      }
    })()
  }
}

async function reads(forms: Form[], devices: number) {
  const T = Date.UTC(2026, 0, 4)
  const dir = mkdtempSync(join(tmpdir(), 'vigil-minutes-reads-'))
  try {
    const dbs = forms.map((form) => {
      const db = openDatabase(join(dir, `${form}.db`))
      fill(db.sqlite, form, devices, T)
      db.sqlite.run('PRAGMA wal_checkpoint(TRUNCATE)')
      return { form, db, hw: readers(db.sqlite, form, 'hardware'), net: readers(db.sqlite, form, 'network') }
    })
    const seqs = JSON.stringify(Array.from({ length: devices }, (_, i) => i + 1))
    const H = 3_600_000
    const cases: Record<string, (r: (typeof dbs)[number], i: number) => unknown> = {
      'series of 6 h at 1m (one device, one kind)': (r, i) => r.hw.device(1 + (i % devices), T - 6 * H - 30_000, T),
      'series of 24 h at 1m': (r, i) => r.hw.device(1 + (i % devices), T - 24 * H - 30_000, T),
      'summary of 6 h (both kinds)': (r, i) => [r.hw.device(1 + (i % devices), T - 6 * H, T), r.net.device(1 + (i % devices), T - 6 * H, T)],
      [`the fleet's CPU sparklines (${devices} devices, 60 minutes)`]: (r) => r.hw.spark(seqs, T - H, T),
      [`the 10m roll of an hour from 1m (${devices} devices, both kinds)`]: (r) => [r.hw.source(seqs, T - 2 * H, T - H), r.net.source(seqs, T - 2 * H, T - H)],
    }
    // the same answers from each form
    for (const [name, f] of Object.entries(cases)) {
      const answer = (r: (typeof dbs)[number]) => JSON.stringify(f(r, 3), (_, v) => (Array.isArray(v) && Array.isArray(v[0]) ? [...v].sort() : v))
      const want = answer(dbs[0]!)
      for (const r of dbs.slice(1)) if (answer(r) !== want) console.log(`!! ${name}: ${r.form} answers differently`)
    }
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
    console.log(`\nReads of the 1m tier, ${devices} devices × 3 days, in process, forms alternating (µs, p50 / p99 of 400; load average ${load})`)
    console.log(`| read | ${forms.join(' | ')} |`)
    console.log(`|---|${forms.map(() => '---').join('|')}|`)
    for (const [name, f] of Object.entries(cases)) {
      const us = new Map<string, number[]>(forms.map((f) => [f, []]))
      for (let i = 0; i < 440; i++)
        for (const r of dbs) {
          const s = performance.now()
          f(r, i)
          if (i >= 40) us.get(r.form)!.push((performance.now() - s) * 1000)
        }
      const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * p)]!
      console.log(`| ${name} | ${forms.map((f) => `${Math.round(q(us.get(f)!, 0.5))} / ${Math.round(q(us.get(f)!, 0.99))}`).join(' | ')} |`)
    }
    for (const r of dbs) {
      console.log(`${r.form}: the tier keeps ${fmt(minuteKept(r.db.sqlite) / (devices * 3 * 1440 * 6))} per sample (both kinds, 6 samples a minute)`)
      r.db.close()
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
  const forms = (arg('--forms') ?? 'rows,timefirst,compact').split(',') as Form[]
  const all = !['--writes', '--late', '--reads'].some((f) => process.argv.includes(f))
  const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
  const sample = async () => {
    const file = arg('--sample')
    const base = file ? (JSON.parse(readFileSync(file, 'utf8')) as Sample) : await realSample(arg('--vigil') ?? join(import.meta.dir, '../../dist/vigil'))
    delete base.recorded_at
    return base
  }
  if (all || process.argv.includes('--reads')) await reads(forms, Number(arg('--devices') ?? 100))
  if (all || process.argv.includes('--late')) {
    await late(await sample(), forms)
    console.log(`load average ${load()}`)
  }
  if (all || process.argv.includes('--writes')) {
    await cadence(await sample(), forms, Number(arg('--hours') ?? 2.5))
    console.log(`load average ${load()}`)
  }
}
