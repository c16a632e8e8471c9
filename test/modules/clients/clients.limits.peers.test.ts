import { expect, test } from 'bun:test'
import { clientLimits } from '../../../src/modules/clients/clients.limits'
import type { ClientRow } from '../../../src/modules/clients/clients.store'
import { linkedPeers } from '../../helpers/peer-links'

test("with several hubs, a client's limit changed on one hub is read again by the others on their next request", () => {
  const { links, miss } = linkedPeers(2)
  // one database both hubs read: the row the operator changes
  const rows: Record<string, Partial<ClientRow>> = { cli_1: { plan_type: 'free', rate_limit: null }, cli_2: { plan_type: 'free', rate_limit: null } }
  const store = { byId: (id: string) => (rows[id] ?? null) as ClientRow | null }
  const plans = { rateLimitOf: () => 60 }
  const a = clientLimits(store, plans, null, links[0])
  const b = clientLimits(store, plans, null, links[1])
  expect(b.rateLimitFor('cli_1')).toBe(60)
  expect(b.rateLimitFor('cli_2')).toBe(60)
  rows.cli_1 = { plan_type: 'free', rate_limit: 600 }
  rows.cli_2 = { plan_type: 'free', rate_limit: 900 }
  // changed through hub A: A tells B about cli_1 only
  a.invalidate('cli_1')
  expect(b.rateLimitFor('cli_1')).toBe(600)
  expect(b.rateLimitFor('cli_2')).toBe(60)
  // a hub that may have missed messages reads every client again
  miss(1, null)
  expect(b.rateLimitFor('cli_2')).toBe(900)
})
