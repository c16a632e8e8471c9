import { expect, test } from 'bun:test'
import { manualClock } from '../../../src/lib/clock'
import { cachedDirectory, DIRECTORY_TTL_MS } from '../../../src/modules/users/users.directory'
import { linkedPeers } from '../../helpers/peer-links'

function accountsDb() {
  const accounts: Record<string, { role: string; email: string }> = { u1: { role: 'admin', email: 'op@test' }, u2: { role: 'user', email: 't@test' } }
  const operatorClients = ['c1']
  const reads = { account: 0, operators: 0 }
  return {
    accounts,
    operatorClients,
    reads,
    reads_: {
      account: async (id: string) => {
        reads.account++
        return accounts[id] ?? null
      },
      operatorClients: async () => {
        reads.operators++
        return [...operatorClients]
      },
    },
  }
}
const settle = () => new Promise((r) => setTimeout(r, 0))

test('roles are cached per hub; a role changed on another hub is read again at once, and every role after DIRECTORY_TTL_MS', async () => {
  const { links } = linkedPeers(2)
  const db = accountsDb()
  const clock = manualClock()
  const a = cachedDirectory(db.reads_, clock, links[0])
  const b = cachedDirectory(db.reads_, clock, links[1])
  expect(await b.roleOf('u2')).toBe('user')
  expect(b.roleOf('u2')).toBe('user') // at once, from the cache
  expect(await b.roleOf('gone')).toBeNull()
  db.accounts.u2!.role = 'admin'
  a.changed!('u2')
  expect(await b.roleOf('u2')).toBe('admin')
  // vigil admin set-role tells no hub: the cache gives way after its time
  db.accounts.u2!.role = 'user'
  expect(b.roleOf('u2')).toBe('admin')
  clock.advance(DIRECTORY_TTL_MS)
  expect(await b.roleOf('u2')).toBe('user')
})

test("an email is answered from the hub's cache, null until this hub has read the account", async () => {
  const db = accountsDb()
  const dir = cachedDirectory(db.reads_, manualClock())
  expect(dir.emailOf('u1')).toBeNull()
  await settle()
  expect(dir.emailOf('u1')).toBe('op@test')
  await dir.roleOf('u2')
  expect(dir.emailOf('u2')).toBe('t@test')
})

test("the operators' clients are answered synchronously from the last read set, read again in the background when stale", async () => {
  const db = accountsDb()
  const clock = manualClock()
  const dir = cachedDirectory(db.reads_, clock)
  expect(dir.isOperatorClient('c1')).toBe(false) // not read yet: the narrower rights
  await settle()
  expect(dir.isOperatorClient('c1')).toBe(true)
  expect(dir.isOperatorClient('c2')).toBe(false)
  expect(db.reads.operators).toBe(1)
  db.operatorClients.push('c2')
  clock.advance(DIRECTORY_TTL_MS)
  expect(dir.isOperatorClient('c2')).toBe(false) // this answer from the stale set; the read starts
  await settle()
  expect(dir.isOperatorClient('c2')).toBe(true)
  expect(db.reads.operators).toBe(2)
})
