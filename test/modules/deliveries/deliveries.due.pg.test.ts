import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { migratePostgres } from '../../../src/db/pg/migrate'
import { type PgClaimed, pgDueClaims } from '../../../src/modules/deliveries/deliveries.due.pg'
import { PG_QUEUES } from '../../../src/modules/deliveries/deliveries.claim.pg'
import { type FreshDatabase, postgresForTests } from '../../helpers/postgres'

/**
 * The PostgreSQL claim of both delivery queues, on a fresh migrated database with rows inserted
 * in SQL. "Workers" (hubs) are claimers on connections of their own.
 */
const pg = postgresForTests()
let db: FreshDatabase
let sql: SQL
const open: SQL[] = []
beforeAll(async () => {
  if (!pg.url) return
  db = await pg.freshDatabase()
  sql = new SQL(db.url, { max: 2 })
  await migratePostgres(sql, 0)
}, 60_000)
afterAll(async () => {
  for (const s of open) await s.close({ timeout: 0 })
  await sql?.close({ timeout: 0 })
  await db?.drop()
}, 30_000)
beforeEach(async () => {
  if (pg.url) await sql`TRUNCATE clients CASCADE`
}, 30_000)

const NOW = 1_000_000
type Queue = keyof typeof PG_QUEUES
interface Row {
  id: string
  account: string
  destination: string
  due: number
  status?: string
}

/** the accounts, their channels or endpoints, and the rows, in a few statements */
async function seed(queue: Queue, rows: Row[], disabled: string[] = []) {
  const accounts = [...new Set(rows.map((r) => r.account))]
  const destinations = [...new Map(rows.map((r) => [r.destination, r.account]))].map(([id, account]) => ({ id, account, enabled: !disabled.includes(id) }))
  await sql.unsafe(`INSERT INTO clients (id, name, created_at, updated_at) SELECT id, id, 0, 0 FROM jsonb_array_elements_text($1::text::jsonb) AS id`, [
    JSON.stringify(accounts),
  ])
  const json = JSON.stringify(destinations)
  if (queue === 'channels') {
    await sql.unsafe(
      `INSERT INTO channels (id, client_id, name, kind, config, enabled, created_at, updated_at)
       SELECT id, account, id, 'webhook', '{}', enabled, 0, 0 FROM jsonb_to_recordset($1::text::jsonb) AS d(id text, account text, enabled boolean)`,
      [json],
    )
    await sql.unsafe(
      `INSERT INTO channel_deliveries (id, client_id, channel_id, event, severity, notification, status, next_attempt_at, created_at)
       SELECT id, account, destination, 'alert.fired', 'critical', '{}', coalesce(status, 'pending'), due, 0
         FROM jsonb_to_recordset($1::text::jsonb) AS r(id text, account text, destination text, due bigint, status text)`,
      [JSON.stringify(rows)],
    )
  } else {
    await sql.unsafe(
      `INSERT INTO webhook_endpoints (id, client_id, url, event_types, enabled, secret_enc, created_at, updated_at)
       SELECT id, account, 'https://x.example/h', '[]', enabled, 's', 0, 0 FROM jsonb_to_recordset($1::text::jsonb) AS d(id text, account text, enabled boolean)`,
      [json],
    )
    await sql.unsafe(
      `INSERT INTO webhook_deliveries (id, client_id, endpoint_id, message_id, event_type, payload, status, next_attempt_at, created_at)
       SELECT id, account, destination, id, 'alert.fired', '{}', coalesce(status, 'pending'), due, 0
         FROM jsonb_to_recordset($1::text::jsonb) AS r(id text, account text, destination text, due bigint, status text)`,
      [JSON.stringify(rows)],
    )
  }
}

/** `n` rows of an account, due one ms apart from `from`, round the destinations `<account>-d<i>` */
const rowsOf = (account: string, n: number, destinations = 1, from = 0): Row[] =>
  Array.from({ length: n }, (_, i) => ({ id: `${account}-${i}`, account, destination: `${account}-d${i % destinations}`, due: from + i }))

function worker(queue: Queue) {
  const s = new SQL(db.url, { max: 1 })
  open.push(s)
  return { sql: s, claims: pgDueClaims(s, PG_QUEUES[queue]) }
}

const ids = (c: { claimed: PgClaimed[] }) => c.claimed.map((j) => j.id)
const caps = { perAccount: 4, perDestination: 2 }

for (const queue of ['channels', 'webhooks'] as const) {
  const table = PG_QUEUES[queue].table
  describe(`the ${queue} queue claimed on PostgreSQL`, () => {
    for (const n of [2, 4]) {
      test.skipIf(!pg.url)(
        `${n} workers at once over 1,000 due rows of five accounts: each delivery is taken once ${pg.skipReason}`,
        async () => {
          await seed(queue, [...rowsOf('a', 600, 3), ...rowsOf('b', 200, 2), ...rowsOf('c', 100, 4), ...rowsOf('d', 60), ...rowsOf('e', 40, 2)])
          const taken: string[][] = []
          const drain = async (w: ReturnType<typeof worker>) => {
            const mine: string[] = []
            taken.push(mine)
            let after: string | null = null
            for (;;) {
              const batch = await w.claims.claim({ now: NOW, limit: 16, caps: { perAccount: 8, perDestination: 4 }, after })
              after = batch.lastServed
              if (batch.claimed.length) {
                mine.push(...ids(batch))
                // the attempts' results, written with the claim's lease as its token
                const done = await w.sql.unsafe(
                  `UPDATE ${table} SET status = 'done' FROM jsonb_array_elements_text($1::text::jsonb) AS d(id)
                  WHERE ${table}.id = d.id AND status = 'sending' AND next_attempt_at = $2::bigint RETURNING ${table}.id`,
                  [JSON.stringify(ids(batch)), batch.claimed[0]!.leaseUntil],
                )
                expect(done.length).toBe(batch.claimed.length)
              } else {
                // nothing for this worker now: another may still be sending what is left
                const [{ left }] = await w.sql.unsafe(`SELECT count(*)::int AS left FROM ${table} WHERE status <> 'done'`)
                if (left === 0) return
              }
            }
          }
          await Promise.all(Array.from({ length: n }, () => drain(worker(queue))))
          const all = taken.flat()
          expect(all).toHaveLength(1000)
          expect(new Set(all).size).toBe(1000)
          for (const mine of taken) expect(mine.length).toBeGreaterThan(0)
          const [{ done }] = await sql.unsafe(`SELECT count(*)::int AS done FROM ${table} WHERE status = 'done'`)
          expect(done).toBe(1000)
        },
        60_000,
      )
    }

    test.skipIf(!pg.url)(
      `an account whose receivers never answer holds its share only, on every hub: another account's row goes out at once ${pg.skipReason}`,
      async () => {
        await seed(queue, [...rowsOf('a', 400, 5), ...rowsOf('b', 1, 1, 500)])
        const [one, two] = [worker(queue), worker(queue)]
        const first = await one.claims.claim({ now: NOW, limit: 8, caps, after: null })
        expect(ids(first).toSorted()).toEqual(['a-0', 'a-1', 'a-2', 'a-3', 'b-0'])
        // a's four attempts are in flight (on the first hub): the second takes none of a's rows
        expect(ids(await two.claims.claim({ now: NOW, limit: 8, caps, after: null }))).toEqual([])
      },
      60_000,
    )

    test.skipIf(!pg.url)(
      `per destination: one channel or endpoint cannot take all of its account's slots ${pg.skipReason}`,
      async () => {
        await seed(queue, [...rowsOf('a', 10), { id: 'a-other', account: 'a', destination: 'elsewhere', due: 50 }])
        const got = await worker(queue).claims.claim({ now: NOW, limit: 8, caps, after: null })
        expect(ids(got).toSorted()).toEqual(['a-0', 'a-1', 'a-other'])
      },
      60_000,
    )

    test.skipIf(!pg.url)(
      `accounts are served in turn, one row each per round, starting after the last one served ${pg.skipReason}`,
      async () => {
        await seed(queue, [
          ...rowsOf('c', 3, 3),
          ...rowsOf('a', 3, 3),
          ...rowsOf('b', 3, 3),
          { id: 'b-later', account: 'b', destination: 'b-d0', due: NOW + 1 },
          { id: 'a-done', account: 'a', destination: 'a-d0', due: 0, status: 'succeeded' },
        ])
        const w = worker(queue)
        const first = await w.claims.claim({ now: NOW, limit: 4, caps: { perAccount: 8, perDestination: 4 }, after: null })
        expect(ids(first)).toEqual(['a-0', 'b-0', 'c-0', 'a-1'])
        expect(first.lastServed).toBe('a')
        const next = await w.claims.claim({ now: NOW, limit: 3, caps: { perAccount: 8, perDestination: 4 }, after: first.lastServed })
        expect(ids(next)).toEqual(['b-1', 'c-1', 'a-2'])
        const rest = await w.claims.claim({ now: NOW, limit: 8, caps: { perAccount: 8, perDestination: 4 }, after: next.lastServed })
        expect(ids(rest)).toEqual(['b-2', 'c-2']) // not b-later (not due), not a-done (finished)
      },
      60_000,
    )

    test.skipIf(!pg.url)(
      `an account's backlog at a full destination is passed over in the index: its other destination's row goes ${pg.skipReason}`,
      async () => {
        await seed(queue, [
          { id: 'a-flying-1', account: 'a', destination: 'a1', due: NOW + 60_000, status: 'sending' },
          { id: 'a-flying-2', account: 'a', destination: 'a1', due: NOW + 60_000, status: 'sending' },
          ...rowsOf('a', 100).map((r) => ({ ...r, destination: 'a1' })),
          { id: 'a-late', account: 'a', destination: 'a2', due: 500 },
        ])
        const got = await worker(queue).claims.claim({ now: NOW, limit: 8, caps, after: null })
        expect(ids(got)).toEqual(['a-late'])
      },
      60_000,
    )

    test.skipIf(!pg.url)(
      `a claim's lease: nobody else takes the row before it ends, anyone may after, and a late release changes nothing ${pg.skipReason}`,
      async () => {
        await seed(queue, rowsOf('a', 2, 2))
        const [one, two] = [worker(queue), worker(queue)]
        const held = await one.claims.claim({ now: NOW, limit: 8, caps, after: null, leaseMs: 30_000 })
        expect(held.claimed.map((j) => [j.id, j.leaseUntil])).toEqual([
          ['a-0', NOW + 30_000],
          ['a-1', NOW + 30_000],
        ])
        expect(ids(await two.claims.claim({ now: NOW + 29_999, limit: 8, caps, after: null }))).toEqual([])
        // the first worker died: its lease is over and the rows come back
        const again = await two.claims.claim({ now: NOW + 30_000, limit: 8, caps, after: null, leaseMs: 30_000 })
        expect(ids(again)).toEqual(['a-0', 'a-1'])
        expect(await one.claims.release(held.claimed, NOW + 30_001)).toBe(0)
        expect(await two.claims.release(again.claimed, NOW + 30_002)).toBe(2)
        const rows = await sql.unsafe(`SELECT status, next_attempt_at::int8::float8 AS at FROM ${table} ORDER BY id`)
        expect(rows.map((r: { status: string; at: number }) => [r.status, r.at])).toEqual([
          ['pending', NOW + 30_002],
          ['pending', NOW + 30_002],
        ])
      },
      60_000,
    )
  })
}

describe('the webhooks queue claimed on PostgreSQL', () => {
  test.skipIf(!pg.url)(
    `a delivery to an endpoint disabled meanwhile is not taken ${pg.skipReason}`,
    async () => {
      await seed('webhooks', [...rowsOf('a', 2, 2)], ['a-d1'])
      expect(ids(await worker('webhooks').claims.claim({ now: NOW, limit: 8, caps, after: null }))).toEqual(['a-0'])
    },
    60_000,
  )
})
