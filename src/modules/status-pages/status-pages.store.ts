import type { Database } from 'bun:sqlite'

export interface PageRow {
  id: string
  client_id: string
  slug: string
  title: string
  description: string
  theme: 'auto' | 'light' | 'dark'
  custom_domain: string | null
  published: number
  groups: string
  created_at: number
  updated_at: number
}

export interface NoteRow {
  id: string
  client_id: string
  page_id: string
  kind: 'incident' | 'maintenance'
  title: string
  state: string
  starts_at: number
  ends_at: number | null
  closed_at: number | null
  created_at: number
  updated_at: number
}

export interface NoteUpdateRow {
  id: string
  note_id: string
  state: string
  body: string
  created_at: number
}

/** What a page's write did: the page as stored, or why nothing was written. */
export type PageWrite = { page: PageRow } | { refused: 'page_limit' | 'slug_taken' | 'domain_taken' }

/** What a note's write did: the note as stored, or why nothing was written. */
export type NoteWrite = { note: NoteRow } | { refused: 'no_page' | 'no_note' | 'note_limit' | 'update_limit' }

/** A note's change, made from the note as stored (synchronous: it runs inside the write's transaction). */
export type NoteEdit = (old: NoteRow) => { note: NoteRow; update?: NoteUpdateRow }

/**
 * The status_pages, status_notes and status_note_updates tables, on either engine (this file:
 * SQLite; status-pages.store.pg.ts: PostgreSQL). Every team read and write filters by client_id;
 * the public reads (by slug, domain, page id) serve anyone on purpose. What reads and writes
 * together (a page made within the limit with a free slug, a note's update) is one call, one
 * transaction; an `edit` passed in is synchronous and may throw to write nothing.
 */
export interface StatusPagesStore {
  /** oldest first, ties by id */
  listPages(clientId: string): Promise<PageRow[]>
  pageById(clientId: string, id: string): Promise<PageRow | null>
  /** any account's page (the public side) */
  pageBySlug(slug: string): Promise<PageRow | null>
  pageByDomain(domain: string): Promise<PageRow | null>
  /** inserts the page while the account has fewer than `maxPages` and its slug and domain are free */
  createPage(row: PageRow, maxPages: number): Promise<PageWrite>
  /** the page changed by `edit` (null: no such page of this client); its slug and domain must be free */
  editPage(clientId: string, id: string, edit: (old: PageRow) => PageRow): Promise<PageWrite | null>
  removePage(clientId: string, id: string): Promise<boolean>
  /** the account's pages that list this check or device, oldest first */
  pagesShowing(clientId: string, type: 'check' | 'device', id: string): Promise<PageRow[]>
  /** drops the item from every page of the account that lists it; the ids of the pages changed */
  forgetItem(clientId: string, type: 'check' | 'device', id: string, now: number): Promise<string[]>

  /** inserts the note and its first update while the page exists and has fewer than `maxNotes` */
  createNote(note: NoteRow, update: NoteUpdateRow, maxNotes: number): Promise<NoteWrite>
  /** the note changed by `edit`, with the update it adds (fewer than `maxUpdates` before it) */
  editNote(clientId: string, pageId: string, noteId: string, edit: NoteEdit, maxUpdates: number): Promise<NoteWrite>
  noteById(clientId: string, pageId: string, id: string): Promise<NoteRow | null>
  /** latest start first, ties by id descending */
  notes(clientId: string, pageId: string, limit: number, offset: number): Promise<NoteRow[]>
  countNotes(clientId: string, pageId: string): Promise<number>
  /** what a public page shows: every open note, and those closed since `closedSince`, latest start first */
  visibleNotes(pageId: string, closedSince: number, limit: number): Promise<NoteRow[]>
  removeNote(clientId: string, pageId: string, id: string): Promise<boolean>
  /** the updates of these notes, oldest first, ties by id */
  updatesOf(noteIds: string[]): Promise<NoteUpdateRow[]>
}

export const PAGE_COLUMNS = 'id, client_id, slug, title, description, theme, custom_domain, published, groups, created_at, updated_at'
export const NOTE_COLUMNS = 'id, client_id, page_id, kind, title, state, starts_at, ends_at, closed_at, created_at, updated_at'
const marks = (cols: string) =>
  cols
    .split(', ')
    .map(() => '?')
    .join(', ')
export const valuesOf = <T extends object>(cols: string, row: T) => cols.split(', ').map((c) => row[c as keyof T] as string | number | null)

/** the groups JSON without the item (type, id); null when it did not list it */
export function withoutItem(groups: string, type: 'check' | 'device', id: string): string | null {
  const parsed = JSON.parse(groups) as { items: { type: string; id: string }[] }[]
  let dropped = false
  const out = parsed.map((g) => ({
    ...g,
    items: g.items.filter((i) => {
      const hit = i.type === type && i.id === id
      dropped ||= hit
      return !hit
    }),
  }))
  return dropped ? JSON.stringify(out) : null
}

/** The store on SQLite: statements run when called (bun:sqlite is synchronous), transactions IMMEDIATE. */
export function createStatusPagesStore(sqlite: Database): StatusPagesStore {
  const insertPage = sqlite.query(`INSERT INTO status_pages (${PAGE_COLUMNS}) VALUES (${marks(PAGE_COLUMNS)})`)
  const updatePage = sqlite.query(
    'UPDATE status_pages SET slug = ?, title = ?, description = ?, theme = ?, custom_domain = ?, published = ?, groups = ?, updated_at = ? WHERE client_id = ? AND id = ?',
  )
  const listPages = sqlite.query<PageRow, [string]>(`SELECT ${PAGE_COLUMNS} FROM status_pages WHERE client_id = ? ORDER BY created_at, id`)
  const pageById = sqlite.query<PageRow, [string, string]>(`SELECT ${PAGE_COLUMNS} FROM status_pages WHERE client_id = ? AND id = ?`)
  const pageBySlug = sqlite.query<PageRow, [string]>(`SELECT ${PAGE_COLUMNS} FROM status_pages WHERE slug = ?`)
  const pageByDomain = sqlite.query<PageRow, [string]>(`SELECT ${PAGE_COLUMNS} FROM status_pages WHERE custom_domain = ?`)
  const slugTaken = sqlite.query<{ id: string }, [string]>('SELECT id FROM status_pages WHERE slug = ?')
  const domainTaken = sqlite.query<{ id: string }, [string]>('SELECT id FROM status_pages WHERE custom_domain = ?')
  const countPages = sqlite.query<{ n: number }, [string]>('SELECT count(*) AS n FROM status_pages WHERE client_id = ?')
  const removePage = sqlite.query<{ id: string }, [string, string]>('DELETE FROM status_pages WHERE client_id = ? AND id = ? RETURNING id')
  // an account has at most a few dozen pages: walking their groups' JSON is cheaper than an index to keep in step
  const pagesShowing = sqlite.query<PageRow, [string, string, string]>(
    `SELECT ${PAGE_COLUMNS} FROM status_pages p WHERE client_id = ? AND EXISTS (
       SELECT 1 FROM json_each(p.groups) g, json_each(g.value, '$.items') i
       WHERE json_extract(i.value, '$.type') = ? AND json_extract(i.value, '$.id') = ?)
     ORDER BY created_at, id`,
  )

  const insertNote = sqlite.query(`INSERT INTO status_notes (${NOTE_COLUMNS}) VALUES (${marks(NOTE_COLUMNS)})`)
  const updateNote = sqlite.query(
    'UPDATE status_notes SET title = ?, state = ?, starts_at = ?, ends_at = ?, closed_at = ?, updated_at = ? WHERE client_id = ? AND id = ?',
  )
  const noteById = sqlite.query<NoteRow, [string, string, string]>(`SELECT ${NOTE_COLUMNS} FROM status_notes WHERE client_id = ? AND page_id = ? AND id = ?`)
  const notesPage = sqlite.query<NoteRow, [string, string, number, number]>(
    `SELECT ${NOTE_COLUMNS} FROM status_notes WHERE client_id = ? AND page_id = ? ORDER BY starts_at DESC, id DESC LIMIT ? OFFSET ?`,
  )
  const countNotes = sqlite.query<{ n: number }, [string, string]>('SELECT count(*) AS n FROM status_notes WHERE client_id = ? AND page_id = ?')
  const visibleNotes = sqlite.query<NoteRow, [string, number, number]>(
    // the open ones first, so that the cap never drops an open incident or a maintenance in progress
    `SELECT ${NOTE_COLUMNS} FROM status_notes WHERE page_id = ? AND (closed_at IS NULL OR closed_at >= ?) ORDER BY closed_at IS NULL DESC, starts_at DESC, id DESC LIMIT ?`,
  )
  const removeNote = sqlite.query<{ id: string }, [string, string, string]>(
    'DELETE FROM status_notes WHERE client_id = ? AND page_id = ? AND id = ? RETURNING id',
  )
  const insertUpdate = sqlite.query('INSERT INTO status_note_updates (id, note_id, state, body, created_at) VALUES (?, ?, ?, ?, ?)')
  const countUpdates = sqlite.query<{ n: number }, [string]>('SELECT count(*) AS n FROM status_note_updates WHERE note_id = ?')

  const tx = <T>(fn: () => T): T => sqlite.transaction(fn).immediate()
  const taken = (row: PageRow): PageWrite | null => {
    const slugOwner = slugTaken.get(row.slug)?.id
    if (slugOwner && slugOwner !== row.id) return { refused: 'slug_taken' }
    const domainOwner = row.custom_domain === null ? undefined : domainTaken.get(row.custom_domain)?.id
    if (domainOwner && domainOwner !== row.id) return { refused: 'domain_taken' }
    return null
  }
  const write = (row: PageRow) =>
    updatePage.run(row.slug, row.title, row.description, row.theme, row.custom_domain, row.published, row.groups, row.updated_at, row.client_id, row.id)
  const addUpdate = (u: NoteUpdateRow) => insertUpdate.run(u.id, u.note_id, u.state, u.body, u.created_at)

  return {
    listPages: async (clientId) => listPages.all(clientId),
    pageById: async (clientId, id) => pageById.get(clientId, id),
    pageBySlug: async (slug) => pageBySlug.get(slug),
    pageByDomain: async (domain) => pageByDomain.get(domain),
    createPage: async (row, maxPages) =>
      tx((): PageWrite => {
        if (countPages.get(row.client_id)!.n >= maxPages) return { refused: 'page_limit' }
        const refused = taken(row)
        if (refused) return refused
        insertPage.run(...valuesOf(PAGE_COLUMNS, row))
        return { page: row }
      }),
    editPage: async (clientId, id, edit) =>
      tx((): PageWrite | null => {
        const old = pageById.get(clientId, id)
        if (!old) return null
        const row = { ...edit(old), id: old.id, client_id: old.client_id, created_at: old.created_at }
        const refused = taken(row)
        if (refused) return refused
        write(row)
        return { page: row }
      }),
    removePage: async (clientId, id) => removePage.all(clientId, id).length > 0,
    pagesShowing: async (clientId, type, id) => pagesShowing.all(clientId, type, id),
    forgetItem: async (clientId, type, id, now) =>
      tx(() =>
        pagesShowing.all(clientId, type, id).flatMap((old) => {
          const groups = withoutItem(old.groups, type, id)
          if (groups === null) return []
          write({ ...old, groups, updated_at: now })
          return [old.id]
        }),
      ),

    createNote: async (note, update, maxNotes) =>
      tx((): NoteWrite => {
        if (!pageById.get(note.client_id, note.page_id)) return { refused: 'no_page' }
        if (countNotes.get(note.client_id, note.page_id)!.n >= maxNotes) return { refused: 'note_limit' }
        insertNote.run(...valuesOf(NOTE_COLUMNS, note))
        addUpdate(update)
        return { note }
      }),
    editNote: async (clientId, pageId, noteId, edit, maxUpdates) =>
      tx((): NoteWrite => {
        if (!pageById.get(clientId, pageId)) return { refused: 'no_page' }
        const old = noteById.get(clientId, pageId, noteId)
        if (!old) return { refused: 'no_note' }
        const { note, update } = edit(old)
        if (update && countUpdates.get(noteId)!.n >= maxUpdates) return { refused: 'update_limit' }
        updateNote.run(note.title, note.state, note.starts_at, note.ends_at, note.closed_at, note.updated_at, clientId, noteId)
        if (update) addUpdate({ ...update, note_id: noteId })
        return { note: { ...note, id: old.id, client_id: old.client_id, page_id: old.page_id } }
      }),
    noteById: async (clientId, pageId, id) => noteById.get(clientId, pageId, id),
    notes: async (clientId, pageId, limit, offset) => notesPage.all(clientId, pageId, limit, offset),
    countNotes: async (clientId, pageId) => countNotes.get(clientId, pageId)!.n,
    visibleNotes: async (pageId, closedSince, limit) => visibleNotes.all(pageId, closedSince, limit),
    removeNote: async (clientId, pageId, id) => removeNote.all(clientId, pageId, id).length > 0,
    async updatesOf(noteIds) {
      if (!noteIds.length) return []
      return sqlite
        .query<NoteUpdateRow, string[]>(
          `SELECT id, note_id, state, body, created_at FROM status_note_updates WHERE note_id IN (${noteIds.map(() => '?').join(', ')}) ORDER BY created_at, id`,
        )
        .all(...noteIds)
    },
  }
}
