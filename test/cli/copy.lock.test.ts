import { describe, expect, test } from 'bun:test'
import { copyPlan, copySqliteToPostgres } from '../../src/db/pg/copy'
import { ensureMetricTables, PARTITIONS_LOCK } from '../../src/db/pg/metrics.partitions'
import { testApp } from '../helpers/app'
import { pgTestAppLifecycle } from '../helpers/app.pg'

const pgApp = pgTestAppLifecycle()
const DAY = 86_400_000
const T0 = Date.UTC(2026, 10, 20)

describe('vigil copy beside a hub making day partitions', () => {
  test.skipIf(pgApp.skip)(
    `the copy waits for the partitions' lock before locking a table, so neither deadlocks ${pgApp.skipReason}`,
    async () => {
      const target = (await pgApp.make()).sql
      await ensureMetricTables(target, T0)
      const source = testApp().db.sqlite
      // a hub making a day partition, as ensureMetricTables does: the partitions' lock, the parent
      // table, then the partition, whose key points at devices (which a copy locks before the parent)
      let release!: () => void
      const gate = new Promise<void>((r) => {
        release = r
      })
      let parentLocked!: () => void
      const locked = new Promise<void>((r) => {
        parentLocked = r
      })
      const day = T0 + 30 * DAY
      const hub = target.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(${PARTITIONS_LOCK})`
        await tx.unsafe('LOCK TABLE metric_records IN SHARE UPDATE EXCLUSIVE MODE')
        parentLocked()
        await gate
        await tx.unsafe(`CREATE TABLE IF NOT EXISTS metric_records_lock_test PARTITION OF metric_records FOR VALUES FROM (${day}) TO (${day + DAY})`)
      })
      await locked
      let settled = false
      const copy = copySqliteToPostgres(source, target, copyPlan(), { replace: true, verify: true }).finally(() => {
        settled = true
      })
      await Bun.sleep(300)
      expect(settled).toBe(false)
      release()
      // both finish: before, the copy held devices while waiting for the parent, the partition waited
      // for devices, and PostgreSQL broke the deadlock by failing one of them
      await hub
      const copied = await copy
      expect(copied.find((t) => t.table === 'metric_records')?.rows).toBe(0)
      const [{ n }] = await target`SELECT count(*) AS n FROM pg_class WHERE relname = 'metric_records_lock_test'`
      expect(Number(n)).toBe(1)
    },
    30_000,
  )
})
