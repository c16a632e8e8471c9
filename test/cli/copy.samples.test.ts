import { describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/connection'
import { copyPlan, copySqliteToPostgres } from '../../src/db/pg/copy'
import { ensureMetricTables } from '../../src/db/pg/metrics.partitions'
import { runRollup } from '../../src/modules/metrics/metrics.jobs'
import { testApp, type TestApp } from '../helpers/app'
import { pgTestAppLifecycle } from '../helpers/app.pg'
import { tenantWithDevices } from '../helpers/metrics'
import real from '../fixtures/agent-sample.json'

/**
 * The copy carries the samples into the form a PostgreSQL hub reads: an instance on SQLite with
 * sealed samples (rows, and blocks in their files beside the database), samples still in their hot records, a sample of one part and
 * days outside the partitions a hub makes around today, copied into an app on PostgreSQL, whose
 * history, series and summary then answer what the source answers.
 */
const pgApp = pgTestAppLifecycle()
const T0 = Date.UTC(2026, 10, 20, 12)
const MIN = 60_000
const HOUR = 60 * MIN
const DAY = 24 * HOUR
const config = { metricsRetention: { raw: 30 * 86_400, m1: 30 * 86_400, m10: 30 * 86_400, h1: 90 * 86_400, d1: 365 * 86_400 } }
const at = (ms: number) => new Date(ms).toISOString()
const item = (ts: number, i: number) => ({
  hardware: { ...real.hardware, cpu_percent: 5 + (i % 90) },
  network: { ...real.network, bytes_sent_total: (real.network.bytes_sent_total as number) + i * 4096 },
  recorded_at: at(ts),
})

type Tenant = Awaited<ReturnType<typeof tenantWithDevices>>

/** the paths compared, and their answers on one app */
async function reads(t: TestApp, a: Tenant) {
  const d = a.deviceId
  const out: Record<string, string> = {}
  for (const path of [
    `hardware/${d}?limit=1000&start_date=${at(T0 - 12 * DAY)}&end_date=${at(T0 + 1)}`,
    `network/${d}?limit=1000&start_date=${at(T0 - 12 * DAY)}&end_date=${at(T0 + 1)}`,
    `hardware/${d}?limit=7&offset=20`,
    `hardware/${d}/latest`,
    `network/${d}/latest`,
    `summary/${d}?hours=1`,
    `series/${d}?kind=hardware&fields=cpu_percent,cpu_per_core,disk_partitions&resolution=raw&start=${at(T0 - HOUR)}&end=${at(T0 + 1)}`,
    `series/${d}?kind=network&fields=bytes_sent_total,interfaces&resolution=1m&start=${at(T0 - 11 * DAY)}&end=${at(T0 - 9 * DAY)}`,
  ]) {
    const r = await t.request('GET', `/v1/metrics/${path}`, { headers: a.userHeaders })
    out[path] = `${r.status} ${r.text}`
  }
  return out
}

describe('vigil copy: the samples in PostgreSQL form', () => {
  test.skipIf(pgApp.skip)(
    `history, series and summary on a PostgreSQL app after a copy answer what the source answers ${pgApp.skipReason}`,
    async () => {
      // a database file: the sealed blocks' bytes are in files beside it, which the copy reads as `vigil copy` does
      const dir = mkdtempSync(join(tmpdir(), 'vigil-copy-samples-'))
      const file = join(dir, 'vigil.db')
      const lite = testApp({ config, db: openDatabase(file) })
      lite.clock.set(T0)
      const a = await tenantWithDevices(lite)
      const post = async (path: string, body: unknown) =>
        expect((await lite.request('POST', `/v1/metrics/${path}`, { body, headers: a.keyHeaders })).status).toBe(201)
      // ten days back (outside the days a hub makes around today), then an hour ending now
      await post('bulk', { items: Array.from({ length: 30 }, (_, i) => item(T0 - 10 * DAY + i * MIN, i)) })
      await post('bulk', { items: Array.from({ length: 60 }, (_, i) => item(T0 - HOUR + i * MIN, 100 + i)) })
      // the older ones sealed into blocks; the newest stay in their hot records
      lite.clock.set(T0 + 2 * MIN)
      await lite.modules.sealer.run()
      // a sample of one part
      await post('hardware', { ...real.hardware, cpu_percent: 42, recorded_at: at(T0 + MIN) })
      await runRollup(lite.modules.metricsJobs)
      const blocks = lite.db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM metric_block_index').get()!.n
      expect(blocks).toBeGreaterThan(0)
      expect(readdirSync(`${file}-blocks`).length).toBeGreaterThan(0)
      const hot = lite.db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM temp.metric_hot_rows').get()!.n
      expect(hot).toBeGreaterThan(0)
      const before = await reads(lite, a)

      // the target: a fresh migrated database (an app made on it, then copied into with --replace)
      const target = (await pgApp.make({ config })).sql
      await ensureMetricTables(target, T0)
      // read on a connection of its own, as `vigil copy` opens the file
      const source = new Database(file)
      const tables = await copySqliteToPostgres(source, target, copyPlan(), { replace: true, verify: true }).finally(() => source.close())
      const records = tables.find((x) => x.table === 'metric_records')!
      // every sample of the source, once: 30 + 60 + 1
      expect(records.rows).toBe(91)
      expect(records.verified).toEqual({ rows: 91, checksum: records.checksum })
      // SQLite's own metric tables stay empty on PostgreSQL, and are not reported as copied
      expect(tables.map((x) => x.table)).not.toContain('metric_samples')
      const [{ n }] = await target`SELECT (SELECT count(*) FROM metric_samples) + (SELECT count(*) FROM metric_blocks) AS n`
      expect(Number(n)).toBe(0)
      // a hub started on the copy
      const pg = testApp({ config, pg: target })
      pg.clock.set(T0 + 2 * MIN)
      const after = await reads(pg, a)
      for (const [path, text] of Object.entries(before)) expect(`${path} → ${after[path]}`).toBe(`${path} → ${text}`)
      expect(JSON.parse(before[Object.keys(before)[0]!]!.slice(4)).total).toBe(90)
      // a new sample on the copy takes an id past the copied ones
      const next = await pg.request('POST', '/v1/metrics/hardware', { body: { ...real.hardware, recorded_at: at(T0 + 2 * MIN) }, headers: a.keyHeaders })
      expect(next.status).toBe(201)
      const maxId = lite.db.sqlite.query<{ m: number }, []>('SELECT max(id) AS m FROM metric_samples').get()!.m
      expect(next.body.ids?.[0] ?? next.body.id).toBeGreaterThan(maxId ?? 0)
      lite.db.close()
      rmSync(dir, { recursive: true, force: true })
    },
    60_000,
  )
})
