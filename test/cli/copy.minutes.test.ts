import { describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/connection'
import { copyPlan, copySqliteToPostgres } from '../../src/db/pg/copy'
import { ensureMetricTables } from '../../src/db/pg/metrics.partitions'
import { tierColumns, type MetricKind } from '../../src/modules/metrics/metrics.fields'
import { runRollup } from '../../src/modules/metrics/metrics.jobs'
import { testApp } from '../helpers/app'
import { pgTestAppLifecycle } from '../helpers/app.pg'
import { tenantWithDevices } from '../helpers/metrics'
import { hardwareSample, networkSample } from '../helpers/samples'
import { minuteRows } from '../modules/metrics/minute-rows'

/**
 * SQLite keeps the 1-minute tier coded per ten minutes (and an upgraded instance the rows of the
 * earlier form beside it); PostgreSQL keeps a row per device and minute. The copy writes every
 * minute as a row, verified, and PostgreSQL's table then holds what SQLite's hub reads.
 */
const pgApp = pgTestAppLifecycle()
const T0 = Date.UTC(2026, 10, 20, 12)
const MIN = 60_000
const HOUR = 60 * MIN
const config = { metricsRetention: { raw: 30 * 86_400, m1: 30 * 86_400, m10: 30 * 86_400, h1: 90 * 86_400, d1: 365 * 86_400 } }

describe('vigil copy: the 1-minute tier', () => {
  test.skipIf(pgApp.skip)(
    `every minute, coded or of the earlier form, becomes PostgreSQL's row, verified ${pgApp.skipReason}`,
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'vigil-copy-minutes-'))
      try {
        const file = join(dir, 'vigil.db')
        const lite = testApp({ config, db: openDatabase(file) })
        lite.clock.set(T0)
        const a = await tenantWithDevices(lite)
        const items = Array.from({ length: 3 * 360 }, (_, i) => ({
          recorded_at: new Date(T0 - 3 * HOUR + i * 10_000).toISOString(),
          hardware: { ...hardwareSample(i), cpu_percent: ((i * 37.17) % 97) + 0.123456789 },
          network: { ...networkSample(i), bytes_recv_total: 1_000_000 + i * 1234 },
        }))
        for (let i = 0; i < items.length; i += 500)
          expect((await lite.request('POST', '/v1/metrics/bulk', { body: { items: items.slice(i, i + 500) }, headers: a.keyHeaders })).status).toBe(201)
        lite.clock.set(T0 + 35_000)
        await runRollup(lite.modules.metricsJobs)
        // a minute of the earlier form, as an upgraded instance keeps it
        const names = (kind: MetricKind) => ['device_seq', 'bucket', 'n', ...tierColumns(kind)]
        const first = minuteRows(lite.db.sqlite)[0]!
        lite.db.sqlite.run(
          `INSERT INTO metric_hw_1m (${names('hardware').join(', ')}) VALUES (${names('hardware')
            .map(() => '?')
            .join(', ')})`,
          names('hardware').map((n) => (n === 'bucket' ? T0 - 4 * HOUR : first[n]!)),
        )
        const want = { hardware: minuteRows(lite.db.sqlite, 'hardware'), network: minuteRows(lite.db.sqlite, 'network') }
        expect(want.hardware).toHaveLength(3 * 60 + 1)
        expect(lite.db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM metric_hw_1m_packed').get()!.n).toBe(18)

        const target = (await pgApp.make({ config })).sql
        await ensureMetricTables(target, T0)
        const source = new Database(file)
        const tables = await copySqliteToPostgres(source, target, copyPlan(), { replace: true, verify: true }).finally(() => source.close())
        for (const [kind, table] of [
          ['hardware', 'metric_hw_1m'],
          ['network', 'metric_net_1m'],
        ] as const) {
          const copied = tables.find((x) => x.table === table)!
          expect(copied.rows).toBe(want[kind].length)
          expect(copied.verified).toEqual({ rows: copied.rows, checksum: copied.checksum })
          const rows = (await target.unsafe(`SELECT ${names(kind).join(', ')} FROM ${table} ORDER BY device_seq, bucket`)) as Record<string, unknown>[]
          const asNumbers = rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === null ? null : Number(v)])))
          expect(asNumbers).toEqual(want[kind])
        }
        // SQLite's coded tables stay empty on PostgreSQL, and are not reported as copied
        expect(tables.map((x) => x.table)).not.toContain('metric_hw_1m_packed')
        const [{ n }] = await target`SELECT count(*) AS n FROM metric_hw_1m_packed`
        expect(Number(n)).toBe(0)
        lite.db.close()
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
    60_000,
  )
})
