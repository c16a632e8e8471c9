import { describe, expect, test } from 'bun:test'
import { createVersionsStore, type NewVersion, type VersionsStore } from '../../../src/modules/versions/versions.store'
import { createVersionsStorePg } from '../../../src/modules/versions/versions.store.pg'
import { ENGINES, type EngineDb } from '../../helpers/engines'

/** The collector_versions store answers the same on SQLite and on PostgreSQL. */
const storeOf = (db: EngineDb): VersionsStore => (db.sqlite ? createVersionsStore(db.sqlite) : createVersionsStorePg(db.pg!))

const version = (over: Partial<NewVersion> & { id: string; version: string }): NewVersion => ({
  platform: 'linux-x64',
  build_number: null,
  release_notes: null,
  download_url: null,
  sha256: null,
  is_mandatory: 0,
  created_at: 1_700_000_000_000,
  published_by: null,
  ...over,
})

for (const engine of ENGINES) {
  describe(`versions store on ${engine.name}`, () => {
    const handle = engine.lifecycle()
    const skip = engine.skip
    const store = () => storeOf(handle.db)

    test.skipIf(skip)(`a version reads back as written, numbers as numbers and the flag as 1 or 0 ${engine.skipReason}`, async () => {
      const s = store()
      expect(
        await s.insert(
          version({
            id: 'v1',
            version: '1.2.0',
            build_number: 120,
            release_notes: 'notes',
            download_url: '/download/vigil-linux-x64',
            sha256: 'ab'.repeat(32),
            is_mandatory: 1,
            published_by: 'usr_1',
          }),
        ),
      ).toBe(true)
      expect(await s.byId('v1')).toEqual({
        id: 'v1',
        platform: 'linux-x64',
        version: '1.2.0',
        build_number: 120,
        release_notes: 'notes',
        download_url: '/download/vigil-linux-x64',
        sha256: 'ab'.repeat(32),
        is_mandatory: 1,
        created_at: 1_700_000_000_000,
      })
      await s.insert(version({ id: 'v2', version: '1.10.0', created_at: 1_700_000_000_500 }))
      const plain = await s.byId('v2')
      expect([plain!.build_number, plain!.release_notes, plain!.download_url, plain!.sha256, plain!.is_mandatory]).toEqual([null, null, null, null, 0])
      expect(await s.byId('nope')).toBeNull()
    })

    test.skipIf(skip)(`a (platform, version) pair is published once: the second insert writes nothing and says so ${engine.skipReason}`, async () => {
      const s = store()
      expect(await s.insert(version({ id: 'v1-again', version: '1.2.0', release_notes: 'other' }))).toBe(false)
      expect(await s.byId('v1-again')).toBeNull()
      expect((await s.byId('v1'))!.release_notes).toBe('notes')
      // the same version of another platform is its own release
      expect(await s.insert(version({ id: 'v3', version: '1.2.0', platform: 'linux-arm64', created_at: 1_700_000_000_500 }))).toBe(true)
    })

    test.skipIf(skip)(`ofPlatform gives every version of that platform only ${engine.skipReason}`, async () => {
      const s = store()
      expect((await s.ofPlatform('linux-x64')).map((r) => r.id).sort()).toEqual(['v1', 'v2'])
      expect((await s.ofPlatform('linux-arm64')).map((r) => r.id)).toEqual(['v3'])
      expect(await s.ofPlatform('windows-x64')).toEqual([])
    })

    test.skipIf(skip)(`page lists newest first, ties by id descending, with the total of the filter ${engine.skipReason}`, async () => {
      const s = store()
      const all = await s.page(null, 10, 0)
      expect(all.rows.map((r) => r.id)).toEqual(['v3', 'v2', 'v1'])
      expect(all.total).toBe(3)
      const second = await s.page(null, 1, 1)
      expect(second.rows.map((r) => r.id)).toEqual(['v2'])
      expect(second.total).toBe(3)
      const x64 = await s.page('linux-x64', 10, 0)
      expect(x64.rows.map((r) => r.id)).toEqual(['v2', 'v1'])
      expect(x64.total).toBe(2)
      expect(await s.page('windows-x64', 10, 0)).toEqual({ rows: [], total: 0 })
      expect((await s.page(null, 10, 5)).rows).toEqual([])
    })
  })
}
