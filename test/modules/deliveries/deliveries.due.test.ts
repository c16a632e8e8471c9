import { expect, test } from 'bun:test'
import { dueQueries } from '../../../src/modules/deliveries/deliveries.due'
import { testApp } from '../../helpers/app'
import { createTenant } from '../../helpers/fixtures'

test('due rows per account: which accounts, where their rows go, and one account read past its full endpoints', async () => {
  const t = testApp()
  const [a, b, idle] = [await createTenant(t), await createTenant(t), await createTenant(t)]
  const endpoint = (clientId: string, id: string) =>
    t.db.sqlite.run(
      "INSERT INTO webhook_endpoints (id, client_id, url, event_types, secret_enc, created_at, updated_at) VALUES (?, ?, 'https://x.example/h', '[]', 's', 0, 0)",
      [id, clientId],
    )
  endpoint(a.clientId, 'a1')
  endpoint(a.clientId, 'a2')
  endpoint(b.clientId, 'b1')
  endpoint(idle.clientId, 'i1')
  let n = 0
  const row = (clientId: string, endpointId: string, status: string, due: number) =>
    t.db.sqlite.run(
      "INSERT INTO webhook_deliveries (id, client_id, endpoint_id, message_id, event_type, payload, status, next_attempt_at, created_at) VALUES (?, ?, ?, 'm', 'x', '{}', ?, ?, 0)",
      [`d${n++}`, clientId, endpointId, status, due],
    )
  for (let i = 0; i < 50; i++) row(a.clientId, 'a1', 'pending', i) // a backlog at a1
  row(a.clientId, 'a2', 'pending', 60)
  row(b.clientId, 'b1', 'pending', 70)
  row(b.clientId, 'b1', 'pending', 5_000) // not due yet
  row(idle.clientId, 'i1', 'succeeded', 0) // finished: not due

  const q = dueQueries(t.db.sqlite, 'webhook_deliveries', 'endpoint_id')
  const accounts = q.dueAccounts(1_000)
  expect(Object.fromEntries(accounts.map((d) => [d.account, d.destinations.toSorted()]))).toEqual({
    [a.clientId]: ['a1', 'a2'],
    [b.clientId]: ['b1'],
  })
  expect(q.dueOf(b.clientId, 1_000, [], 10).map((r) => r.id)).toEqual(['d51'])
  expect(q.dueOf(a.clientId, 1_000, [], 3).map((r) => r.id)).toEqual(['d0', 'd1', 'd2'])
  // a1 full: its backlog is passed over in the index, a2's row comes first
  expect(q.dueOf(a.clientId, 1_000, ['a1'], 3)).toEqual([{ id: 'd50', destination: 'a2', account: a.clientId }])
})
