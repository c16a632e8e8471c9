import { describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { postgresForTests, redisForTests } from '../helpers/postgres'

const pg = postgresForTests()
const redis = redisForTests()

describe('the test servers .ci/run starts', () => {
  test.skipIf(!pg.url)(`a fresh PostgreSQL database is empty, usable and dropped afterwards ${pg.skipReason}`, async () => {
    const db = await pg.freshDatabase()
    const sql = new SQL(db.url, { max: 1 })
    const [{ n }] = await sql`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'`
    expect(n).toBe(0)
    const [{ v }] = await sql`SELECT current_setting('server_version_num')::int AS v`
    expect(v).toBeGreaterThanOrEqual(150000)
    await sql.close()
    await db.drop()
    const admin = new SQL(pg.url!, { max: 1 })
    const left = await admin`SELECT 1 FROM pg_database WHERE datname = ${db.name}`
    await admin.close()
    expect(left.length).toBe(0)
  })

  test.skipIf(!redis.url)(`Redis answers ${redis.skipReason}`, async () => {
    const client = new Bun.RedisClient(redis.url!)
    expect(await client.send('PING', [])).toBe('PONG')
    client.close()
  })
})
