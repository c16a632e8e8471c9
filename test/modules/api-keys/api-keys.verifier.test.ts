import { expect, test } from 'bun:test'
import { manualClock } from '../../../src/lib/clock'
import { sha256Hex } from '../../../src/lib/crypto'
import { generateApiKey } from '../../../src/modules/api-keys/api-keys.format'
import type { ApiKeyCredentialRow } from '../../../src/modules/api-keys/api-keys.store'
import { apiKeyVerifier } from '../../../src/modules/api-keys/api-keys.verifier'
import { linkedPeers } from '../../helpers/peer-links'

/** a store that counts its lookups: what a request costs is what the verifier asks of it */
function fakeStore(rows: Record<string, ApiKeyCredentialRow>) {
  const asked: string[] = []
  return {
    asked,
    async byHash(hash: string) {
      asked.push(hash)
      return rows[hash] ?? null
    },
    touch: async () => undefined,
  }
}

const row = (over: Partial<ApiKeyCredentialRow> = {}): ApiKeyCredentialRow => ({
  id: 'key_1',
  client_id: 'cli_1',
  scopes: '["metrics:write"]',
  device_id: null,
  is_active: 1,
  expires_at: null,
  last_used_at: null,
  ...over,
})

test('a key is looked up once, then served from memory; a revoke (invalidate) is seen on the very next request', async () => {
  const key = generateApiKey()
  const rows = { [sha256Hex(key)]: row() }
  const store = fakeStore(rows)
  const verifier = apiKeyVerifier(store, manualClock())
  for (let i = 0; i < 3; i++) expect(await verifier.verify(key)).toMatchObject({ kind: 'key', keyId: 'key_1', clientId: 'cli_1' })
  expect(store.asked.length).toBe(1)
  rows[sha256Hex(key)] = row({ is_active: 0 })
  verifier.invalidate('key_1')
  expect(await verifier.verify(key)).toEqual({ kind: 'invalid', presented: 'key', message: 'This API key has been revoked' })
  expect(store.asked.length).toBe(2)
})

test('a made-up or mistyped key is refused without a lookup, whatever its length', async () => {
  const store = fakeStore({})
  const verifier = apiKeyVerifier(store, manualClock())
  const key = generateApiKey()
  const typo = `${key.slice(0, 10)}${key[10] === 'a' ? 'b' : 'a'}${key.slice(11)}`
  for (const k of [typo, `${key}x`, key.slice(0, -1), 'vk_short', '', 'x'.repeat(49), `vk_${'!'.repeat(46)}`]) {
    expect(await verifier.verify(k)).toEqual({ kind: 'invalid', presented: 'key', message: 'Invalid API key' })
  }
  expect(store.asked).toEqual([])
})

test('sha256Hex is SHA-256 in lowercase hex, as the stored key hashes are', () => {
  expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
  expect(sha256Hex('vk_é')).toBe(new Bun.CryptoHasher('sha256').update(Buffer.from('vk_é', 'utf8')).digest('hex'))
})

test('a row read before a revoke and answered after it is not cached: the next request looks again', async () => {
  const key = generateApiKey()
  let answer: (r: ApiKeyCredentialRow) => void = () => {}
  const asked: string[] = []
  const store = {
    byHash(hash: string) {
      asked.push(hash)
      return asked.length === 1 ? new Promise<ApiKeyCredentialRow>((resolve) => (answer = resolve)) : Promise.resolve(row({ is_active: 0 }))
    },
    touch: async () => undefined,
  }
  const verifier = apiKeyVerifier(store, manualClock())
  const first = verifier.verify(key)
  verifier.invalidate('key_1') // the revoke commits while the lookup is out
  answer(row())
  expect(await first).toMatchObject({ kind: 'key' }) // read before the revoke: this request passes
  expect(await verifier.verify(key)).toEqual({ kind: 'invalid', presented: 'key', message: 'This API key has been revoked' })
  expect(asked.length).toBe(2)
})

test('with several hubs, a key revoked on one is refused by the others on their very next request, and a hub that missed messages looks keys up again', async () => {
  const { links, miss } = linkedPeers(2)
  const key = generateApiKey()
  const rows = { [sha256Hex(key)]: row() }
  const [storeA, storeB] = [fakeStore(rows), fakeStore(rows)]
  const a = apiKeyVerifier(storeA, manualClock(), links[0])
  const b = apiKeyVerifier(storeB, manualClock(), links[1])
  expect(await a.verify(key)).toMatchObject({ kind: 'key' })
  expect(await b.verify(key)).toMatchObject({ kind: 'key' })
  expect(await b.verify(key)).toMatchObject({ kind: 'key' })
  expect(storeB.asked.length).toBe(1)
  // revoked through hub A: the row changes in the shared database, A tells B
  rows[sha256Hex(key)] = row({ is_active: 0 })
  a.invalidate('key_1')
  expect(await b.verify(key)).toEqual({ kind: 'invalid', presented: 'key', message: 'This API key has been revoked' })
  expect(storeB.asked.length).toBe(2)
  // a hub whose link dropped forgets what it cached
  rows[sha256Hex(key)] = row()
  expect(await b.verify(key)).toMatchObject({ kind: 'invalid' })
  miss(1, null)
  expect(await b.verify(key)).toMatchObject({ kind: 'key' })
  expect(storeB.asked.length).toBe(3)
})
