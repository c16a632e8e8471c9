import { describe, expect, test } from 'bun:test'
import { manualClock } from '../../../src/lib/clock'
import { memoryLogger } from '../../../src/lib/logger'
import { gapsBetween } from '../../../src/modules/ai/ai.hub-runs'
import { hubRunsPg } from '../../../src/modules/ai/ai.hub-runs.pg'
import { ENGINES } from '../../helpers/engines'

const MIN = 60_000
const T0 = Date.parse('2026-11-27T00:00:00Z')

describe('gaps between runs', () => {
  test('overlapping runs leave no gap between them; a stretch after the last sign of every run is one', () => {
    const runs = [
      { from: T0, to: T0 + 10 * MIN },
      { from: T0 + 5 * MIN, to: T0 + 20 * MIN },
      { from: T0 + 8 * MIN, to: T0 + 9 * MIN },
      { from: T0 + 30 * MIN, to: T0 + 40 * MIN },
    ]
    expect(gapsBetween(runs, T0, T0 + 40 * MIN)).toEqual([{ from: T0 + 20 * MIN, to: T0 + 30 * MIN }])
    expect(gapsBetween(runs, T0, T0 + 19 * MIN)).toEqual([])
    expect(gapsBetween([], T0, T0 + MIN)).toEqual([])
  })
})

const pg = ENGINES.find((e) => e.name === 'postgres')!
describe('the hubs’ runs on PostgreSQL', () => {
  const handle = pg.lifecycle()
  test.skipIf(pg.skip)(`a stretch is a gap only when no hub ran: one hub's restart under another is none ${pg.skipReason}`, async () => {
    const sql = handle.db.pg!
    const clock = manualClock(T0)
    const { logger } = memoryLogger()
    const a = hubRunsPg({ sql, clock, logger, hub: 'a' })
    await a.beat()
    clock.set(T0 + 5 * MIN)
    const b = hubRunsPg({ sql, clock, logger, hub: 'b' })
    await b.beat()
    clock.set(T0 + 10 * MIN)
    await a.beat() // a's last sign: it goes away
    await b.beat()
    clock.set(T0 + 20 * MIN)
    await b.beat() // and b's
    clock.set(T0 + 30 * MIN)
    const c = hubRunsPg({ sql, clock, logger, hub: 'c' })
    await c.beat()
    // every hub reads the same record
    for (const h of [a, b, c]) expect(await h.gaps(T0, clock.now())).toEqual([{ from: T0 + 20 * MIN, to: T0 + 30 * MIN }])
    expect(await c.gaps(T0, T0 + 15 * MIN)).toEqual([])
    // a week and a day later the old runs are forgotten
    clock.set(T0 + 9 * 86_400_000)
    await c.beat()
    const [{ n }] = await sql`SELECT count(*)::int AS n FROM hub_runs`
    expect(n).toBe(1)
  })
})
