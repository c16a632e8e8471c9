import { expect, test } from 'bun:test'
import type { MemberRole } from '../../../src/http/principal'
import { manualClock } from '../../../src/lib/clock'
import { cachedMemberRoles, ROLE_TTL_MS } from '../../../src/modules/clients/clients.roles'
import { clientLimits } from '../../../src/modules/clients/clients.limits'
import type { ClientRow } from '../../../src/modules/clients/clients.store'
import { linkedPeers } from '../../helpers/peer-links'

/** one database both hubs read, counting the reads */
function membersDb() {
  const roles: Record<string, MemberRole | null> = { 'u1@c1': 'admin', 'u2@c1': 'member', 'u1@c2': 'owner' }
  const reads = { n: 0 }
  return {
    roles,
    reads,
    read: async (userId: string, clientId: string) => {
      reads.n++
      return roles[`${userId}@${clientId}`] ?? null
    },
  }
}

test("a hub answers a member's role from its cache; a change on another hub drops that client's roles there at once", async () => {
  const { links, miss } = linkedPeers(2)
  const db = membersDb()
  const clock = manualClock()
  const a = cachedMemberRoles(db.read, clock, links[0])
  const b = cachedMemberRoles(db.read, clock, links[1])
  expect(await b.roleOf('u1', 'c1')).toBe('admin')
  expect(await b.roleOf('u1', 'c2')).toBe('owner')
  const readsBefore = db.reads.n
  // cached: answered at once, no read
  expect(b.roleOf('u1', 'c1')).toBe('admin')
  expect(db.reads.n).toBe(readsBefore)
  // removed through hub A: B reads c1 again, and only c1
  db.roles['u1@c1'] = null
  db.roles['u1@c2'] = 'member'
  a.changed!('c1')
  expect(await b.roleOf('u1', 'c1')).toBeNull()
  expect(b.roleOf('u1', 'c2')).toBe('owner')
  // a hub that may have missed messages reads every client again
  miss(1, null)
  expect(await b.roleOf('u1', 'c2')).toBe('member')
  // and a cached role is read again after its time in any case
  expect(await b.roleOf('u2', 'c1')).toBe('member')
  db.roles['u2@c1'] = 'admin'
  expect(b.roleOf('u2', 'c1')).toBe('member')
  clock.advance(ROLE_TTL_MS)
  expect(await b.roleOf('u2', 'c1')).toBe('admin')
})

test('a read that began before a change does not put the old role back in the cache', async () => {
  const db = membersDb()
  let release: () => void = () => {}
  const gate = new Promise<void>((r) => (release = r))
  const slow = async (userId: string, clientId: string) => {
    const role = await db.read(userId, clientId)
    await gate
    return role
  }
  const roles = cachedMemberRoles(slow, manualClock())
  const pending = roles.roleOf('u1', 'c1')
  db.roles['u1@c1'] = null
  roles.changed!('c1')
  release()
  expect(await pending).toBe('admin') // what it read, for the request that asked before the change
  expect(await roles.roleOf('u1', 'c1')).toBeNull()
})

test("a client's limit read asynchronously (PostgreSQL) is cached, answered at once after, and read again once invalidated on another hub", async () => {
  const { links } = linkedPeers(2)
  const rows: Record<string, Partial<ClientRow>> = { cli_1: { plan_type: 'free', rate_limit: 300 } }
  let reads = 0
  const store = {
    byId: async (id: string) => {
      reads++
      return (rows[id] ?? null) as ClientRow | null
    },
  }
  const a = clientLimits(store, { rateLimitOf: () => 60 }, null, links[0])
  const b = clientLimits(store, { rateLimitOf: () => 60 }, null, links[1])
  expect(await b.rateLimitFor('cli_1')).toBe(300)
  expect(b.rateLimitFor('cli_1')).toBe(300)
  expect(reads).toBe(1)
  expect(await b.rateLimitFor('unknown')).toBe(60) // the free plan's
  rows.cli_1 = { plan_type: 'free', rate_limit: 900 }
  a.invalidate('cli_1')
  expect(await b.rateLimitFor('cli_1')).toBe(900)
})
