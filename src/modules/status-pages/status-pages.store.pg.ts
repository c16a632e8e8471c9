import type { SQL } from 'bun'
import { type Raw, num, numOrNull } from '../../db/pg/rows'
import {
  NOTE_COLUMNS,
  type NoteRow,
  type NoteUpdateRow,
  type NoteWrite,
  PAGE_COLUMNS,
  type PageRow,
  type PageWrite,
  type StatusPagesStore,
  withoutItem,
} from './status-pages.store'

const page = (r: Raw): PageRow => ({
  id: r.id as string,
  client_id: r.client_id as string,
  slug: r.slug as string,
  title: r.title as string,
  description: r.description as string,
  theme: r.theme as PageRow['theme'],
  custom_domain: (r.custom_domain as string | null) ?? null,
  // a boolean column here, 0/1 as SQLite shows it
  published: r.published ? 1 : 0,
  groups: r.groups as string,
  created_at: num(r.created_at),
  updated_at: num(r.updated_at),
})

const note = (r: Raw): NoteRow => ({
  id: r.id as string,
  client_id: r.client_id as string,
  page_id: r.page_id as string,
  kind: r.kind as NoteRow['kind'],
  title: r.title as string,
  state: r.state as string,
  starts_at: num(r.starts_at),
  ends_at: numOrNull(r.ends_at),
  closed_at: numOrNull(r.closed_at),
  created_at: num(r.created_at),
  updated_at: num(r.updated_at),
})

/** a unique index refused the write: the slug or domain another page took in the meantime (another hub's) */
const takenBy = (err: unknown): PageWrite | null => {
  const e = err as { errno?: string; constraint?: string }
  if (e?.errno !== '23505') return null
  if (e.constraint === 'status_pages_slug') return { refused: 'slug_taken' }
  if (e.constraint === 'status_pages_custom_domain') return { refused: 'domain_taken' }
  return null
}

/**
 * The status pages tables on PostgreSQL: the same answers as the SQLite store
 * (status-pages.store.contract.test.ts). Text is ordered by its bytes (COLLATE "C"), as SQLite
 * orders it. A slug or domain taken by another hub between the check and the write is caught by
 * its unique index and answered as taken; an account's page and note counts are checked under
 * a lock of the account's (pages) or the page's row (notes), so two hubs cannot both pass them.
 */
export function createStatusPagesStorePg(sql: SQL): StatusPagesStore {
  const free = async (tx: SQL, row: PageRow): Promise<PageWrite | null> => {
    const [s]: Raw[] = await tx`SELECT id FROM status_pages WHERE slug = ${row.slug} AND id <> ${row.id}`
    if (s) return { refused: 'slug_taken' }
    if (row.custom_domain !== null) {
      const [d]: Raw[] = await tx`SELECT id FROM status_pages WHERE custom_domain = ${row.custom_domain} AND id <> ${row.id}`
      if (d) return { refused: 'domain_taken' }
    }
    return null
  }
  const write = (tx: SQL, row: PageRow) =>
    tx`UPDATE status_pages SET slug = ${row.slug}, title = ${row.title}, description = ${row.description}, theme = ${row.theme},
      custom_domain = ${row.custom_domain}, published = ${row.published === 1}, groups = ${row.groups}, updated_at = ${row.updated_at}
      WHERE client_id = ${row.client_id} AND id = ${row.id}`
  const showing = async (tx: SQL, clientId: string, type: string, id: string, lock: boolean) => {
    const rows: Raw[] = await tx.unsafe(
      `SELECT ${PAGE_COLUMNS} FROM status_pages p WHERE client_id = $1 AND EXISTS (
         SELECT 1 FROM jsonb_array_elements(p.groups::jsonb) g, jsonb_array_elements(g -> 'items') i
         WHERE i ->> 'type' = $2 AND i ->> 'id' = $3)
       ORDER BY created_at, id COLLATE "C"${lock ? ' FOR UPDATE' : ''}`,
      [clientId, type, id],
    )
    return rows.map(page)
  }
  const addUpdate = (tx: SQL, u: NoteUpdateRow) =>
    tx`INSERT INTO status_note_updates (id, note_id, state, body, created_at) VALUES (${u.id}, ${u.note_id}, ${u.state}, ${u.body}, ${u.created_at})`

  return {
    async listPages(clientId) {
      return (await sql.unsafe(`SELECT ${PAGE_COLUMNS} FROM status_pages WHERE client_id = $1 ORDER BY created_at, id COLLATE "C"`, [clientId])).map(page)
    },
    async pageById(clientId, id) {
      const [r]: Raw[] = await sql.unsafe(`SELECT ${PAGE_COLUMNS} FROM status_pages WHERE client_id = $1 AND id = $2`, [clientId, id])
      return r ? page(r) : null
    },
    async pageBySlug(slug) {
      const [r]: Raw[] = await sql.unsafe(`SELECT ${PAGE_COLUMNS} FROM status_pages WHERE slug = $1`, [slug])
      return r ? page(r) : null
    },
    async pageByDomain(domain) {
      const [r]: Raw[] = await sql.unsafe(`SELECT ${PAGE_COLUMNS} FROM status_pages WHERE custom_domain = $1`, [domain])
      return r ? page(r) : null
    },
    async createPage(row, maxPages) {
      try {
        return await sql.begin(async (tx): Promise<PageWrite> => {
          // one account's creations queue here, so the count cannot miss one in flight on another hub
          await tx`SELECT pg_advisory_xact_lock(hashtextextended(${`vigil.status_pages.create:${row.client_id}`}, 0))`
          const [c]: { n: number }[] = await tx`SELECT count(*)::int AS n FROM status_pages WHERE client_id = ${row.client_id}`
          if (c!.n >= maxPages) return { refused: 'page_limit' }
          const refused = await free(tx, row)
          if (refused) return refused
          await tx`INSERT INTO status_pages (id, client_id, slug, title, description, theme, custom_domain, published, groups, created_at, updated_at)
            VALUES (${row.id}, ${row.client_id}, ${row.slug}, ${row.title}, ${row.description}, ${row.theme}, ${row.custom_domain},
              ${row.published === 1}, ${row.groups}, ${row.created_at}, ${row.updated_at})`
          return { page: row }
        })
      } catch (err) {
        const refused = takenBy(err)
        if (refused) return refused
        throw err
      }
    },
    async editPage(clientId, id, edit) {
      try {
        return await sql.begin(async (tx): Promise<PageWrite | null> => {
          const [r]: Raw[] = await tx.unsafe(`SELECT ${PAGE_COLUMNS} FROM status_pages WHERE client_id = $1 AND id = $2 FOR UPDATE`, [clientId, id])
          if (!r) return null
          const old = page(r)
          const row = { ...edit(old), id: old.id, client_id: old.client_id, created_at: old.created_at }
          const refused = await free(tx, row)
          if (refused) return refused
          await write(tx, row)
          return { page: row }
        })
      } catch (err) {
        const refused = takenBy(err)
        if (refused) return refused
        throw err
      }
    },
    async removePage(clientId, id) {
      return (await sql`DELETE FROM status_pages WHERE client_id = ${clientId} AND id = ${id} RETURNING id`).length > 0
    },
    pagesShowing: (clientId, type, id) => showing(sql, clientId, type, id, false),
    forgetItem(clientId, type, id, now) {
      return sql.begin(async (tx) => {
        const changed: string[] = []
        for (const old of await showing(tx, clientId, type, id, true)) {
          const groups = withoutItem(old.groups, type, id)
          if (groups === null) continue
          await write(tx, { ...old, groups, updated_at: now })
          changed.push(old.id)
        }
        return changed
      })
    },

    createNote(n, update, maxNotes) {
      return sql.begin(async (tx): Promise<NoteWrite> => {
        // the page's row is held: notes of one page are counted and added one at a time across hubs
        const [p]: Raw[] = await tx`SELECT id FROM status_pages WHERE client_id = ${n.client_id} AND id = ${n.page_id} FOR UPDATE`
        if (!p) return { refused: 'no_page' }
        const [c]: { n: number }[] = await tx`SELECT count(*)::int AS n FROM status_notes WHERE client_id = ${n.client_id} AND page_id = ${n.page_id}`
        if (c!.n >= maxNotes) return { refused: 'note_limit' }
        await tx`INSERT INTO status_notes (id, client_id, page_id, kind, title, state, starts_at, ends_at, closed_at, created_at, updated_at)
          VALUES (${n.id}, ${n.client_id}, ${n.page_id}, ${n.kind}, ${n.title}, ${n.state}, ${n.starts_at}, ${n.ends_at}, ${n.closed_at},
            ${n.created_at}, ${n.updated_at})`
        await addUpdate(tx, update)
        return { note: n }
      })
    },
    editNote(clientId, pageId, noteId, edit, maxUpdates) {
      return sql.begin(async (tx): Promise<NoteWrite> => {
        const [p]: Raw[] = await tx`SELECT id FROM status_pages WHERE client_id = ${clientId} AND id = ${pageId}`
        if (!p) return { refused: 'no_page' }
        const [r]: Raw[] = await tx.unsafe(`SELECT ${NOTE_COLUMNS} FROM status_notes WHERE client_id = $1 AND page_id = $2 AND id = $3 FOR UPDATE`, [
          clientId,
          pageId,
          noteId,
        ])
        if (!r) return { refused: 'no_note' }
        const old = note(r)
        const { note: next, update } = edit(old)
        if (update) {
          const [c]: { n: number }[] = await tx`SELECT count(*)::int AS n FROM status_note_updates WHERE note_id = ${noteId}`
          if (c!.n >= maxUpdates) return { refused: 'update_limit' }
        }
        await tx`UPDATE status_notes SET title = ${next.title}, state = ${next.state}, starts_at = ${next.starts_at}, ends_at = ${next.ends_at},
          closed_at = ${next.closed_at}, updated_at = ${next.updated_at} WHERE client_id = ${clientId} AND id = ${noteId}`
        if (update) await addUpdate(tx, { ...update, note_id: noteId })
        return { note: { ...next, id: old.id, client_id: old.client_id, page_id: old.page_id } }
      })
    },
    async noteById(clientId, pageId, id) {
      const [r]: Raw[] = await sql.unsafe(`SELECT ${NOTE_COLUMNS} FROM status_notes WHERE client_id = $1 AND page_id = $2 AND id = $3`, [clientId, pageId, id])
      return r ? note(r) : null
    },
    async notes(clientId, pageId, limit, offset) {
      const rows: Raw[] = await sql.unsafe(
        `SELECT ${NOTE_COLUMNS} FROM status_notes WHERE client_id = $1 AND page_id = $2 ORDER BY starts_at DESC, id COLLATE "C" DESC LIMIT $3 OFFSET $4`,
        [clientId, pageId, limit, offset],
      )
      return rows.map(note)
    },
    async countNotes(clientId, pageId) {
      const [c]: { n: number }[] = await sql`SELECT count(*)::int AS n FROM status_notes WHERE client_id = ${clientId} AND page_id = ${pageId}`
      return c!.n
    },
    async visibleNotes(pageId, closedSince, limit) {
      const rows: Raw[] = await sql.unsafe(
        `SELECT ${NOTE_COLUMNS} FROM status_notes WHERE page_id = $1 AND (closed_at IS NULL OR closed_at >= $2)
         ORDER BY closed_at IS NULL DESC, starts_at DESC, id COLLATE "C" DESC LIMIT $3`,
        [pageId, closedSince, limit],
      )
      return rows.map(note)
    },
    async removeNote(clientId, pageId, id) {
      return (await sql`DELETE FROM status_notes WHERE client_id = ${clientId} AND page_id = ${pageId} AND id = ${id} RETURNING id`).length > 0
    },
    async updatesOf(noteIds) {
      if (!noteIds.length) return []
      const rows: Raw[] = await sql`SELECT id, note_id, state, body, created_at FROM status_note_updates WHERE note_id = ANY(${noteIds})
        ORDER BY created_at, id COLLATE "C"`
      return rows.map((r) => ({
        id: r.id as string,
        note_id: r.note_id as string,
        state: r.state as string,
        body: r.body as string,
        created_at: num(r.created_at),
      }))
    },
  }
}
