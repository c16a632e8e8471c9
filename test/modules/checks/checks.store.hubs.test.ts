import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { SQL } from 'bun'
import { openPostgres } from '../../../src/db/pg/connection'
import { migratePostgres } from '../../../src/db/pg/migrate'
import type { CheckRow } from '../../../src/modules/checks/checks.store.rows'
import { createChecksStorePg } from '../../../src/modules/checks/checks.store.pg'
import { type FreshDatabase, postgresForTests } from '../../helpers/postgres'

/** Two hubs' checks stores (each its own pool) recording results of one check at once on one database. */
const pg = postgresForTests()
let fresh: FreshDatabase | undefined
const pools: SQL[] = []
const T0 = Date.parse('2026-03-10T12:00:00Z')

beforeAll(async () => {
  if (!pg.url) return
  fresh = await pg.freshDatabase('vigil_checks_race')
  for (let i = 0; i < 2; i++) pools.push(openPostgres({ url: fresh.url, pool: 4 }))
  await migratePostgres(pools[0]!, 1)
}, 60_000)
afterAll(async () => {
  for (const p of pools) await p.close()
  await fresh?.drop()
}, 60_000)

const row = (id: string): Omit<CheckRow, 'seq'> => ({
  id,
  client_id: 'c1',
  name: id,
  kind: 'http',
  settings: '{}',
  interval_s: 60,
  timeout_ms: 5000,
  down_after: 1,
  up_after: 1,
  run_on_hub: 1,
  device_ids: '[]',
  depends_on_device_id: null,
  paused: 0,
  hb_token_hash: null,
  hb_token_hint: null,
  state: 'pending',
  state_since: T0,
  last_checked_at: null,
  last_response_ms: null,
  last_status_code: null,
  last_error: null,
  cert_expires_at: null,
  created_at: T0,
  updated_at: T0,
})
const fail = (ts: number) => ({ ts, ok: false, response_ms: null, status_code: null, error: 'refused', cert_expires_at: null })
const ok = (ts: number) => ({ ts, ok: true, response_ms: 5, status_code: 200, error: null, cert_expires_at: null })

test.skipIf(!pg.url)(
  `results of one check recorded on two hubs at once take turns: the state moves once, one incident opens and closes, nothing is stored twice ${pg.skipReason}`,
  async () => {
    const [one, two] = pools.map((p) => createChecksStorePg(p))
    await pools[0]!`INSERT INTO clients (id, name, created_at, updated_at) VALUES ('c1', 'c1', 1, 1)`
    await one!.create(row('chk_a'), 10)
    // the hub's failures and an agent's (place 7) arrive on both hubs at once; each attempt twice (a replay)
    const failures = Array.from({ length: 10 }, (_, i) => [fail(T0 + i * 1000), i % 2 ? 7 : 0] as const)
    const changes = await Promise.all(
      failures.flatMap(([a, place], i) =>
        i < 5 ? [one!.record('chk_a', place, a, [0, 7]), two!.record('chk_a', place, a, [0, 7])] : [two!.record('chk_a', place, a, [0, 7])],
      ),
    )
    const stored = changes.filter((c) => c !== null)
    expect(stored.length).toBe(10)
    // exactly one of them took the check from pending to down
    expect(stored.filter((c) => c!.from !== 'down' && c!.to === 'down').length).toBe(1)
    const incidents = async () => (await pools[0]!`SELECT started_at, ended_at FROM check_incidents WHERE check_id = 'chk_a'`) as { ended_at: string | null }[]
    expect((await incidents()).length).toBe(1)
    // both places succeed at once on both hubs: it is up once, the incident closed once
    const ups = await Promise.all([one!.record('chk_a', 0, ok(T0 + 20_000), [0, 7]), two!.record('chk_a', 7, ok(T0 + 20_001), [0, 7])])
    expect(ups.filter((c) => c!.from === 'down' && c!.to !== 'down').length).toBe(1)
    expect(ups.map((c) => c!.to).sort()).toEqual(['degraded', 'up'])
    const after = await incidents()
    expect(after.length).toBe(1)
    expect(after[0]!.ended_at).not.toBeNull()
    expect((await one!.anyById('chk_a'))!.state).toBe('up')
  },
  60_000,
)
