import { describe, expect, test } from 'bun:test'
import { createStatusPagesStore, type NoteRow, type PageRow, type StatusPagesStore } from '../../../src/modules/status-pages/status-pages.store'
import { createStatusPagesStorePg } from '../../../src/modules/status-pages/status-pages.store.pg'
import { ENGINES, type EngineDb } from '../../helpers/engines'

/** The status pages store answers the same on SQLite and on PostgreSQL. */
const storeOf = (db: EngineDb): StatusPagesStore => (db.sqlite ? createStatusPagesStore(db.sqlite) : createStatusPagesStorePg(db.pg!))

const T0 = 1_700_000_000_000
const groups = (...items: { type: 'check' | 'device'; id: string }[]) =>
  JSON.stringify([{ name: 'All', items: items.map((i, n) => ({ ...i, key: `k${n}`, label: null, show_name: false, show_response_times: false })) }])
const pageRow = (over: Partial<PageRow> & { id: string; slug: string }): PageRow => ({
  client_id: 'c1',
  title: 'Status',
  description: '',
  theme: 'auto',
  custom_domain: null,
  published: 1,
  groups: '[]',
  created_at: T0,
  updated_at: T0,
  ...over,
})
const noteRow = (over: Partial<NoteRow> & { id: string }): NoteRow => ({
  client_id: 'c1',
  page_id: 'p1',
  kind: 'incident',
  title: 'Slow',
  state: 'investigating',
  starts_at: T0,
  ends_at: null,
  closed_at: null,
  created_at: T0,
  updated_at: T0,
  ...over,
})
const upd = (id: string, noteId: string, at = T0) => ({ id, note_id: noteId, state: 'investigating', body: `body ${id}`, created_at: at })

for (const engine of ENGINES) {
  describe(`status pages store on ${engine.name}`, () => {
    const handle = engine.lifecycle()
    const skip = engine.skip
    let store: StatusPagesStore
    let seeded = false
    const ready = async () => {
      store = storeOf(handle.db)
      if (!seeded)
        for (const c of ['c1', 'c2', 'c3']) await handle.db.exec('INSERT INTO clients (id, name, created_at, updated_at) VALUES (?, ?, 1, 1)', [c, c])
      seeded = true
    }

    test.skipIf(skip)(`a page is made within the limit with a free slug and domain; it reads back by id, slug and domain ${engine.skipReason}`, async () => {
      await ready()
      const p1 = pageRow({ id: 'p1', slug: 'acme', custom_domain: 'status.acme.test', groups: groups({ type: 'check', id: 'chk_a' }) })
      expect(await store.createPage(p1, 3)).toEqual({ page: p1 })
      expect(await store.pageById('c1', 'p1')).toEqual(p1)
      expect(await store.pageById('c2', 'p1')).toBeNull()
      expect(await store.pageBySlug('acme')).toEqual(p1)
      expect(await store.pageByDomain('status.acme.test')).toEqual(p1)
      expect(await store.pageBySlug('nope')).toBeNull()
      expect(await store.pageByDomain('nope.test')).toBeNull()
      // taken slug or domain, whichever account asks; nothing written
      expect(await store.createPage(pageRow({ id: 'px', client_id: 'c2', slug: 'acme' }), 3)).toEqual({ refused: 'slug_taken' })
      expect(await store.createPage(pageRow({ id: 'px', client_id: 'c2', slug: 'other', custom_domain: 'status.acme.test' }), 3)).toEqual({
        refused: 'domain_taken',
      })
      expect(await store.pageBySlug('other')).toBeNull()
      // an unpublished page keeps its flag as 0
      const p2 = pageRow({ id: 'p2', slug: 'beta', published: 0, created_at: T0 + 1 })
      expect(await store.createPage(p2, 3)).toEqual({ page: p2 })
      expect((await store.pageBySlug('beta'))!.published).toBe(0)
    })

    test.skipIf(skip)(`the page limit holds per account, also for creations at once ${engine.skipReason}`, async () => {
      await ready()
      expect(await store.createPage(pageRow({ id: 'p3', slug: 'gamma', created_at: T0 + 1 }), 2)).toEqual({ refused: 'page_limit' })
      const made = await Promise.all(Array.from({ length: 5 }, (_, i) => store.createPage(pageRow({ id: `q${i}`, client_id: 'c3', slug: `q-${i}` }), 2)))
      expect(made.filter((w) => 'page' in w).length).toBe(2)
      expect((await store.listPages('c3')).length).toBe(2)
    })

    test.skipIf(skip)(`pages are listed oldest first, ties by id, per account ${engine.skipReason}`, async () => {
      await ready()
      await store.createPage(pageRow({ id: 'p0', slug: 'zero', created_at: T0 + 1 }), 10)
      expect((await store.listPages('c1')).map((p) => p.id)).toEqual(['p1', 'p0', 'p2'])
      expect(await store.listPages('c2')).toEqual([])
    })

    test.skipIf(skip)(
      `an edit sees the page as stored; a slug or domain of another page is refused; another account's page is null ${engine.skipReason}`,
      async () => {
        await ready()
        const w = await store.editPage('c1', 'p1', (old) => ({ ...old, title: `${old.title}!`, custom_domain: null, published: 0, updated_at: T0 + 9 }))
        expect(w).toEqual({ page: { ...(await store.pageById('c1', 'p1'))!, title: 'Status!' } })
        expect((await store.pageById('c1', 'p1'))!).toMatchObject({ title: 'Status!', custom_domain: null, published: 0, updated_at: T0 + 9 })
        expect(await store.pageByDomain('status.acme.test')).toBeNull()
        expect(await store.editPage('c1', 'p1', (old) => ({ ...old, slug: 'beta' }))).toEqual({ refused: 'slug_taken' })
        expect(await store.editPage('c1', 'p1', (old) => ({ ...old, slug: 'acme', title: 'same slug is fine' }))).toMatchObject({
          page: { slug: 'acme' },
        })
        await store.editPage('c1', 'p2', (old) => ({ ...old, custom_domain: 'b.test' }))
        expect(await store.editPage('c1', 'p1', (old) => ({ ...old, custom_domain: 'b.test' }))).toEqual({ refused: 'domain_taken' })
        expect(await store.editPage('c2', 'p1', (old) => ({ ...old, title: 'evil' }))).toBeNull()
        // an edit that throws writes nothing
        await expect(
          store.editPage('c1', 'p1', () => {
            throw new Error('refused')
          }),
        ).rejects.toThrow('refused')
        expect((await store.pageById('c1', 'p1'))!.title).toBe('same slug is fine')
      },
    )

    test.skipIf(skip)(
      `the pages listing a check or device are found, and forgetting it drops it from the account's pages only ${engine.skipReason}`,
      async () => {
        await ready()
        await store.createPage(
          pageRow({ id: 'o1', client_id: 'c2', slug: 'theirs', groups: groups({ type: 'check', id: 'chk_a' }, { type: 'device', id: 'dev_1' }) }),
          10,
        )
        await store.editPage('c1', 'p2', (old) => ({ ...old, groups: groups({ type: 'device', id: 'chk_a' }, { type: 'check', id: 'chk_a' }) }))
        expect((await store.pagesShowing('c1', 'check', 'chk_a')).map((p) => p.id)).toEqual(['p1', 'p2'])
        expect((await store.pagesShowing('c1', 'device', 'chk_a')).map((p) => p.id)).toEqual(['p2'])
        expect(await store.pagesShowing('c1', 'device', 'dev_1')).toEqual([])
        expect((await store.forgetItem('c1', 'check', 'chk_a', T0 + 20)).sort()).toEqual(['p1', 'p2'])
        expect(JSON.parse((await store.pageById('c1', 'p2'))!.groups)[0].items.map((i: { type: string }) => i.type)).toEqual(['device'])
        expect((await store.pageById('c1', 'p1'))!).toMatchObject({ groups: JSON.stringify([{ name: 'All', items: [] }]), updated_at: T0 + 20 })
        expect((await store.pagesShowing('c2', 'check', 'chk_a')).map((p) => p.id)).toEqual(['o1'])
        expect(await store.forgetItem('c1', 'check', 'chk_a', T0 + 30)).toEqual([])
      },
    )

    test.skipIf(skip)(`notes: made within the page's limit with their first update, on the account's page only ${engine.skipReason}`, async () => {
      await ready()
      const n1 = noteRow({ id: 'n1' })
      expect(await store.createNote(n1, upd('u1', 'n1'), 2)).toEqual({ note: n1 })
      expect(await store.createNote(noteRow({ id: 'nx', client_id: 'c2' }), upd('ux', 'nx'), 2)).toEqual({ refused: 'no_page' })
      expect(await store.createNote(noteRow({ id: 'nx', page_id: 'nope' }), upd('ux', 'nx'), 2)).toEqual({ refused: 'no_page' })
      const n2 = noteRow({ id: 'n2', starts_at: T0 + 5, kind: 'maintenance', state: 'scheduled', ends_at: T0 + 50 })
      expect(await store.createNote(n2, upd('u2', 'n2', T0 + 1), 2)).toEqual({ note: n2 })
      expect(await store.createNote(noteRow({ id: 'n3' }), upd('u3', 'n3'), 2)).toEqual({ refused: 'note_limit' })
      expect(await store.noteById('c1', 'p1', 'n3')).toBeNull()
      expect(await store.noteById('c1', 'p1', 'n2')).toEqual(n2)
      expect(await store.noteById('c2', 'p1', 'n2')).toBeNull()
      expect(await store.noteById('c1', 'p2', 'n2')).toBeNull()
      expect(await store.countNotes('c1', 'p1')).toBe(2)
      expect(await store.countNotes('c2', 'p1')).toBe(0)
    })

    test.skipIf(skip)(
      `notes are paged latest start first, ties by id; the public reads open ones, then those closed since, so its cap never drops an open one ${engine.skipReason}`,
      async () => {
        await ready()
        await store.createNote(noteRow({ id: 'n0', starts_at: T0 + 5, closed_at: T0 + 6, state: 'resolved' }), upd('u0', 'n0'), 10)
        expect((await store.notes('c1', 'p1', 10, 0)).map((n) => n.id)).toEqual(['n2', 'n0', 'n1'])
        expect((await store.notes('c1', 'p1', 1, 1)).map((n) => n.id)).toEqual(['n0'])
        expect(await store.notes('c2', 'p1', 10, 0)).toEqual([])
        expect((await store.visibleNotes('p1', T0 + 6, 10)).map((n) => n.id)).toEqual(['n2', 'n1', 'n0'])
        // n0 started after the open n1, but the open ones come first
        expect((await store.visibleNotes('p1', T0 + 6, 2)).map((n) => n.id)).toEqual(['n2', 'n1'])
        expect((await store.visibleNotes('p1', T0 + 7, 10)).map((n) => n.id)).toEqual(['n2', 'n1'])
        expect((await store.visibleNotes('p1', T0 + 7, 1)).map((n) => n.id)).toEqual(['n2'])
      },
    )

    test.skipIf(skip)(
      `a note's edit adds its update within the limit, sees the note as stored, and finds no other account's note ${engine.skipReason}`,
      async () => {
        await ready()
        const w = await store.editNote(
          'c1',
          'p1',
          'n1',
          (old) => ({
            note: { ...old, state: 'resolved', closed_at: T0 + 9, updated_at: T0 + 9 },
            update: { ...upd('u1b', 'ignored', T0 + 9), state: 'resolved' },
          }),
          3,
        )
        expect(w).toEqual({ note: { ...noteRow({ id: 'n1' }), state: 'resolved', closed_at: T0 + 9, updated_at: T0 + 9 } })
        expect((await store.updatesOf(['n1'])).map((u) => [u.id, u.note_id, u.state])).toEqual([
          ['u1', 'n1', 'investigating'],
          ['u1b', 'n1', 'resolved'],
        ])
        expect(await store.editNote('c1', 'p1', 'n1', (old) => ({ note: old, update: upd('u1c', 'n1') }), 2)).toEqual({ refused: 'update_limit' })
        // without an update the limit does not apply
        expect(await store.editNote('c1', 'p1', 'n1', (old) => ({ note: { ...old, title: 'Slow checkout' } }), 2)).toMatchObject({
          note: { title: 'Slow checkout' },
        })
        expect(await store.editNote('c2', 'p1', 'n1', (old) => ({ note: old }), 5)).toEqual({ refused: 'no_page' })
        expect(await store.editNote('c1', 'p1', 'nope', (old) => ({ note: old }), 5)).toEqual({ refused: 'no_note' })
        expect(await store.editNote('c1', 'p2', 'n1', (old) => ({ note: old }), 5)).toEqual({ refused: 'no_note' })
        await expect(
          store.editNote(
            'c1',
            'p1',
            'n1',
            () => {
              throw new Error('bad state')
            },
            5,
          ),
        ).rejects.toThrow('bad state')
        expect((await store.noteById('c1', 'p1', 'n1'))!.title).toBe('Slow checkout')
      },
    )

    test.skipIf(skip)(`updates of several notes come oldest first, ties by id; none asked is none ${engine.skipReason}`, async () => {
      await ready()
      expect((await store.updatesOf(['n2', 'n1', 'n0'])).map((u) => u.id)).toEqual(['u0', 'u1', 'u2', 'u1b'])
      expect((await store.updatesOf(['n2']))[0]).toEqual(upd('u2', 'n2', T0 + 1))
      expect(await store.updatesOf([])).toEqual([])
    })

    test.skipIf(skip)(`removals: another account's note or page is not removed; a page goes with its notes ${engine.skipReason}`, async () => {
      await ready()
      expect(await store.removeNote('c2', 'p1', 'n0')).toBe(false)
      expect(await store.removeNote('c1', 'p1', 'n0')).toBe(true)
      expect(await store.removeNote('c1', 'p1', 'n0')).toBe(false)
      expect(await store.updatesOf(['n0'])).toEqual([])
      expect(await store.removePage('c2', 'p1')).toBe(false)
      expect(await store.removePage('c1', 'p1')).toBe(true)
      expect(await store.pageBySlug('acme')).toBeNull()
      expect(await store.noteById('c1', 'p1', 'n1')).toBeNull()
      expect(await store.updatesOf(['n1', 'n2'])).toEqual([])
      // the slug is free again
      expect(await store.createPage(pageRow({ id: 'p9', slug: 'acme', client_id: 'c2' }), 10)).toMatchObject({ page: { id: 'p9' } })
    })
  })
}
