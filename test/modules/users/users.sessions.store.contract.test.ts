import { describe, expect, test } from 'bun:test'
import { createLogger } from '../../../src/lib/logger'
import { manualClock } from '../../../src/lib/clock'
import { sha256Hex } from '../../../src/lib/crypto'
import { type RotateResult, rotateRefreshToken, type SessionDeps } from '../../../src/modules/users/users.sessions'
import { createSessionsStore, type NewRefreshToken, type SessionsStore } from '../../../src/modules/users/users.sessions.store'
import { createSessionsStorePg } from '../../../src/modules/users/users.sessions.store.pg'
import { ENGINES, type EngineDb } from '../../helpers/engines'

/** The refresh-token store answers the same on SQLite and on PostgreSQL. */
const storeOf = (db: EngineDb): SessionsStore => (db.sqlite ? createSessionsStore(db.sqlite) : createSessionsStorePg(db.pg!))

const T0 = 1_700_000_000_000
const token = (id: string, over: Partial<NewRefreshToken> = {}): NewRefreshToken => ({
  id,
  userId: 'u1',
  familyId: `f-${id}`,
  clientId: 'c1',
  tokenHash: `h-${id}`,
  expiresAt: T0 + 86_400_000,
  now: T0,
  ...over,
})

async function seed(db: EngineDb) {
  for (const u of ['u1', 'u2']) {
    await db.exec("INSERT INTO users (id, email, password_hash, role, created_at, updated_at) VALUES (?, ?, 'old-hash', 'user', 1, 1)", [
      u,
      `${u}@example.test`,
    ])
  }
}

for (const engine of ENGINES) {
  describe(`sessions store on ${engine.name}`, () => {
    const handle = engine.lifecycle()
    const skip = engine.skip
    let store: SessionsStore
    let seeded = false
    const ready = async () => {
      store = storeOf(handle.db)
      if (!seeded) await seed(handle.db)
      seeded = true
    }
    const deps = (clock = manualClock(T0)): SessionDeps => ({
      sessions: store,
      clock,
      logger: createLogger({ level: 'error', format: 'json', write: () => {} }),
      refreshTtlSeconds: 3600,
    })

    test.skipIf(skip)(`a token reads back by its hash, with numbers for its times ${engine.skipReason}`, async () => {
      await ready()
      await store.insert(token('a'))
      expect(await store.byHash('h-a')).toEqual({
        id: 'a',
        user_id: 'u1',
        family_id: 'f-a',
        client_id: 'c1',
        expires_at: T0 + 86_400_000,
        used_at: null,
        revoked_at: null,
      })
      expect(await store.byHash('h-none')).toBeNull()
      await expect(store.insert(token('a2', { tokenHash: 'h-a' }))).rejects.toThrow()
    })

    test.skipIf(skip)(
      `a spend rotates once: the successor is in the family, the token spent; again is reuse and ends the family ${engine.skipReason}`,
      async () => {
        await ready()
        await store.insert(token('r', { tokenHash: sha256Hex('vrt_rotate-me'), familyId: 'fam-r' }))
        const first = await rotateRefreshToken(deps(), 'vrt_rotate-me')
        if (!first.ok) throw new Error(`not rotated: ${first.reason}`)
        expect(first).toMatchObject({ userId: 'u1', clientId: 'c1', familyId: 'fam-r' })
        expect(await store.byHash(sha256Hex('vrt_rotate-me'))).toMatchObject({ used_at: T0, revoked_at: null })
        expect(await store.byHash(sha256Hex(first.token))).toMatchObject({ family_id: 'fam-r', used_at: null, expires_at: T0 + 3_600_000 })

        expect(await rotateRefreshToken(deps(), 'vrt_rotate-me')).toEqual({ ok: false, reason: 'reused', familyId: 'fam-r' })
        expect((await store.byHash(sha256Hex(first.token)))!.revoked_at).toBe(T0)
        expect(await rotateRefreshToken(deps(), first.token)).toEqual({ ok: false, reason: 'revoked' })
        expect(await rotateRefreshToken(deps(), 'vrt_never-issued')).toEqual({ ok: false, reason: 'unknown' })
      },
    )

    test.skipIf(skip)(`an expired token is refused and left as it is ${engine.skipReason}`, async () => {
      await ready()
      await store.insert(token('e', { tokenHash: sha256Hex('vrt_expired'), expiresAt: T0 - 1 }))
      expect(await rotateRefreshToken(deps(), 'vrt_expired')).toEqual({ ok: false, reason: 'expired' })
      expect(await store.byHash(sha256Hex('vrt_expired'))).toMatchObject({ used_at: null, revoked_at: null })
    })

    test.skipIf(skip)(`two spends of one token at once: one rotates, the other is the reuse ${engine.skipReason}`, async () => {
      await ready()
      await store.insert(token('race', { tokenHash: sha256Hex('vrt_race'), familyId: 'fam-race' }))
      const both = await Promise.all([rotateRefreshToken(deps(), 'vrt_race'), rotateRefreshToken(deps(), 'vrt_race')])
      expect(both.map((r) => (r.ok ? 'rotated' : r.reason)).sort()).toEqual(['reused', 'rotated'])
      // the reuse ended the family, the successor included
      const next = both.find((r) => r.ok) as { token: string }
      expect((await store.byHash(sha256Hex(next.token)))!.revoked_at).toBe(T0)
    })

    // SQLite runs each spend to its end before another starts; PostgreSQL runs them side by side
    test.skipIf(skip || engine.name !== 'postgres')(
      `a spend begun while another holds the token waits for it, then finds it spent ${engine.skipReason}`,
      async () => {
        await ready()
        const hash = sha256Hex('vrt_overlap')
        await store.insert(token('ov', { tokenHash: hash, familyId: 'fam-ov' }))
        let second: Promise<RotateResult> | undefined
        const first = await store.spend(hash, (row) => {
          // the first holds the row (its transaction is open) when the second begins
          second = rotateRefreshToken(deps(), 'vrt_overlap')
          const next = token('ov-next', { familyId: 'fam-ov' })
          return { write: { kind: 'rotate', usedId: row!.id, now: T0, next }, result: 'rotated' }
        })
        expect(first).toBe('rotated')
        expect(await second!).toEqual({ ok: false, reason: 'reused', familyId: 'fam-ov' })
      },
    )

    test.skipIf(skip)(`ending a user's other sessions keeps one family, names each ended family once ${engine.skipReason}`, async () => {
      await ready()
      await store.insert(token('o1', { userId: 'u2', familyId: 'keep' }))
      await store.insert(token('o2', { userId: 'u2', familyId: 'g1' }))
      await store.insert(token('o3', { userId: 'u2', familyId: 'g1' }))
      await store.insert(token('o4', { userId: 'u2', familyId: 'g2' }))
      expect((await store.revokeOthersOfUser('u2', 'keep', T0 + 5)).sort()).toEqual(['g1', 'g2'])
      expect((await store.byHash('h-o1'))!.revoked_at).toBeNull()
      expect(await store.revokeOthersOfUser('u2', 'keep', T0 + 6)).toEqual([])
      await store.revokeFamily('keep', T0 + 7)
      expect((await store.byHash('h-o1'))!.revoked_at).toBe(T0 + 7)
    })

    test.skipIf(skip)(`a new password is written with the end of the sessions, all of them or all but one ${engine.skipReason}`, async () => {
      await ready()
      await store.insert(token('p1', { userId: 'u2', familyId: 'p-keep' }))
      await store.insert(token('p2', { userId: 'u2', familyId: 'p-other' }))
      expect(await store.replacePassword('u2', 'new-hash', 'p-keep', T0 + 10)).toEqual(['p-other'])
      expect((await store.byHash('h-p1'))!.revoked_at).toBeNull()
      expect(await store.replacePassword('u2', 'newer-hash', null, T0 + 11)).toEqual(['p-keep'])
      expect((await store.byHash('h-p1'))!.revoked_at).toBe(T0 + 11)
      // the hash itself is the users table's: read it through the engine
      const check = handle.db.sqlite
        ? handle.db.sqlite.query<{ h: string }, []>("SELECT password_hash AS h FROM users WHERE id = 'u2'").get()!.h
        : (await handle.db.pg!`SELECT password_hash AS h FROM users WHERE id = 'u2'`)[0].h
      expect(check).toBe('newer-hash')
    })

    test.skipIf(skip)(`revocations since a time, each family with its latest; the purge counts what it deletes ${engine.skipReason}`, async () => {
      await ready()
      const since = await store.revokedSince(T0 + 5)
      const byFamily = Object.fromEntries(since.map((r) => [r.family_id, r.revoked_at]))
      expect(byFamily).toEqual({ g1: T0 + 5, g2: T0 + 5, keep: T0 + 7, 'p-other': T0 + 10, 'p-keep': T0 + 11 })
      expect(await store.revokedSince(T0 + 12)).toEqual([])
      // expired before the cutoff: 'e'; revoked before it: everything revoked so far
      const due = await countRows(handle.db)
      expect(due).toBeGreaterThan(0)
      expect(await store.purgeBefore(T0 + 100)).toBe(due)
      expect(await store.byHash('h-e')).toBeNull()
      expect(await store.byHash('h-a')).not.toBeNull()
    })
  })
}

/** rows expired or revoked before T0 + 100: what the purge must delete */
async function countRows(db: EngineDb): Promise<number> {
  const text = 'SELECT count(*) AS n FROM refresh_tokens WHERE expires_at < 1700000000100 OR revoked_at < 1700000000100'
  if (db.sqlite) return db.sqlite.query<{ n: number }, []>(text).get()!.n
  return Number((await db.pg!.unsafe(text))[0].n)
}
