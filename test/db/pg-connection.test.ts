import { afterAll, expect, test } from 'bun:test'
import { checkPostgres, openPostgres } from '../../src/db/pg/connection'
import { type FreshDatabase, postgresForTests } from '../helpers/postgres'
import { freePort } from '../helpers/binary'
import { manualTimers } from '../helpers/timers'

const pg = postgresForTests()
const made: FreshDatabase[] = []
afterAll(async () => {
  for (const db of made) await db.drop()
})

test.skipIf(!pg.url)(`the pool names its sessions "vigil" and checkPostgres answers ok ${pg.skipReason}`, async () => {
  const db = await pg.freshDatabase()
  made.push(db)
  const sql = openPostgres({ url: db.url, pool: 2 })
  try {
    expect(await checkPostgres(sql, db.url)).toMatchObject({ ok: true })
    const [row] = await sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = ${db.name} AND application_name = 'vigil'`
    expect(row.n).toBeGreaterThanOrEqual(1)
  } finally {
    await sql.close()
  }
})

test('checkPostgres on a server that is not there: not ok, the reason names it without the password', async () => {
  const url = `postgres://vigil:hunter22@127.0.0.1:${freePort()}/vigil`
  const sql = openPostgres({ url, pool: 1 })
  try {
    const check = await checkPostgres(sql, url)
    expect(check.ok).toBe(false)
    const reason = (check as { reason: string }).reason
    expect(reason).toContain('cannot connect to PostgreSQL at postgres://vigil:***@127.0.0.1:')
    expect(reason).not.toContain('hunter22')
  } finally {
    await sql.close()
  }
})

test('checkPostgres gives up after its timeout on a server that never answers', async () => {
  // a listener that accepts and stays silent, as a hung server would
  const silent = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const url = `postgres://vigil:hunter22@127.0.0.1:${silent.port}/vigil`
  const sql = openPostgres({ url, pool: 1 })
  try {
    const clock = manualTimers()
    const check = checkPostgres(sql, url, { timeoutMs: 2_000, timers: clock.timers })
    expect(clock.fire()).toBe(1) // the two seconds pass
    expect(await check).toEqual({ ok: false, reason: `PostgreSQL at postgres://vigil:***@127.0.0.1:${silent.port}/vigil: no answer within 2000 ms` })
  } finally {
    silent.stop(true)
    await sql.close().catch(() => {})
  }
})
