import { expect, test } from 'bun:test'
import { memoryLogger } from '../../../src/lib/logger'
import { createBlockStore } from '../../../src/modules/metrics/metrics.block.store'
import { createSealer } from '../../../src/modules/metrics/metrics.seal'
import { testApp } from '../../helpers/app'
import { tenantWithDevices } from '../../helpers/metrics'
import { hardwareSample, networkSample } from '../../helpers/samples'

const T0 = Date.UTC(2026, 0, 1)
const HOUR = 3_600_000

/**
 * A pruning deletes a span's rows, then (in another statement) the blocks wholly before its
 * cut-off: killed in between, the blocks stay without rows, and the next pruning may have nothing
 * to do. The first sealing run after the restart drops them.
 */
test('the first sealing run after a start drops the blocks an interrupted pruning left without rows', async () => {
  const t = testApp()
  const a = await tenantWithDevices(t, 2)
  t.clock.set(T0 + 4 * HOUR)
  for (const d of a.deviceIds) {
    const items = Array.from({ length: 360 * 2 }, (_, i) => ({
      hardware: hardwareSample(i),
      network: networkSample(i),
      recorded_at: new Date(T0 + i * 10_000).toISOString(),
    }))
    for (let i = 0; i < items.length; i += 200) {
      const r = await t.request('POST', '/v1/metrics/bulk', { body: { items: items.slice(i, i + 200) }, headers: { ...a.keyHeaders, 'x-device-id': d } })
      expect(r.status).toBe(201)
    }
  }
  await t.modules.sealer.run()
  const sql = t.db.sqlite
  const count = (q: string) => sql.query<{ n: number }, []>(q).get()!.n
  expect(count('SELECT count(*) AS n FROM metric_block_index')).toBe(24)
  const nested = (seq: number) => createBlockStore(sql).nestedMinutes(seq, 0, T0 + 4 * HOUR).length

  // the first device's first hour of rows deleted, its blocks not (the kill landed in between)
  const [first, second] = sql
    .query<{ seq: number }, []>('SELECT seq FROM devices ORDER BY seq')
    .all()
    .map((r) => r.seq)
  sql.run('DELETE FROM main.metric_samples WHERE device_seq = ? AND ts < ?', [first!, T0 + HOUR])
  // and the second device's rows all gone
  sql.run('DELETE FROM main.metric_samples WHERE device_seq = ?', [second!])

  const { logger, lines } = memoryLogger()
  const seqs = () => [first!, second!]
  const restarted = createSealer({ blocks: createBlockStore(sql), devices: { seqs }, writer: { takeWrittenSince: () => new Map() }, clock: t.clock, logger })
  await restarted.run()
  const starts = (table: string, seq: number) =>
    sql
      .query<{ start: number }, [number]>(`SELECT start FROM ${table} WHERE device_seq = ? ORDER BY start`)
      .all(seq)
      .map((r) => r.start - T0)
  const secondHour = Array.from({ length: 6 }, (_, i) => HOUR + i * 600_000)
  expect(starts('metric_block_index', first!)).toEqual(secondHour)
  expect(nested(first!)).toBe(6)
  expect(starts('metric_block_index', second!)).toEqual([])
  expect(nested(second!)).toBe(0)
  expect(lines.map((l) => JSON.parse(l)).filter((l) => l.msg.startsWith('metrics: blocks of pruned samples dropped'))).toMatchObject([{ blocks: 18 }])

  // the kept hour reads back whole from its blocks
  const headers = { authorization: `Bearer ${await t.modules.users.tokens.sign({ userId: a.userId, clientId: a.clientId, role: 'user' })}` }
  const page = await t.request('GET', `/v1/metrics/hardware/${a.deviceIds[0]}?limit=1000`, { headers })
  expect(page.status).toBe(200)
  expect(page.body.items.length).toBe(360)
  expect(page.body.items.at(-1)).toMatchObject({ ...hardwareSample(360), recorded_at: new Date(T0 + HOUR).toISOString() })

  // only the first run after a start looks
  sql.run('DELETE FROM main.metric_samples WHERE device_seq = ? AND ts < ?', [first!, T0 + 2 * HOUR - 600_000])
  await restarted.run()
  expect(starts('metric_block_index', first!).length).toBe(6)
})
