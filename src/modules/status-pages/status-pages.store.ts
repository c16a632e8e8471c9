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

const PAGE_COLUMNS = 'id, client_id, slug, title, description, theme, custom_domain, published, groups, created_at, updated_at'
const NOTE_COLUMNS = 'id, client_id, page_id, kind, title, state, starts_at, ends_at, closed_at, created_at, updated_at'
const marks = (cols: string) =>
  cols
    .split(', ')
    .map(() => '?')
    .join(', ')
const valuesOf = <T extends object>(cols: string, row: T) => cols.split(', ').map((c) => row[c as keyof T] as string | number | null)

/** The status_pages, status_notes and status_note_updates tables. */
export function createStatusPagesStore(sqlite: Database) {
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
       WHERE json_extract(i.value, '$.type') = ? AND json_extract(i.value, '$.id') = ?)`,
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
  // what a public page shows: every open note, and those closed since `since`
  const visibleNotes = sqlite.query<NoteRow, [string, number, number]>(
    `SELECT ${NOTE_COLUMNS} FROM status_notes WHERE page_id = ? AND (closed_at IS NULL OR closed_at >= ?) ORDER BY starts_at DESC, id DESC LIMIT ?`,
  )
  const removeNote = sqlite.query<{ id: string }, [string, string, string]>(
    'DELETE FROM status_notes WHERE client_id = ? AND page_id = ? AND id = ? RETURNING id',
  )
  const insertUpdate = sqlite.query('INSERT INTO status_note_updates (id, note_id, state, body, created_at) VALUES (?, ?, ?, ?, ?)')
  const countUpdates = sqlite.query<{ n: number }, [string]>('SELECT count(*) AS n FROM status_note_updates WHERE note_id = ?')

  return {
    transaction: <T>(fn: () => T): T => sqlite.transaction(fn)(),
    insertPage: (row: PageRow) => void insertPage.run(...valuesOf(PAGE_COLUMNS, row)),
    updatePage: (row: PageRow) =>
      void updatePage.run(row.slug, row.title, row.description, row.theme, row.custom_domain, row.published, row.groups, row.updated_at, row.client_id, row.id),
    listPages: (clientId: string) => listPages.all(clientId),
    pageById: (clientId: string, id: string) => pageById.get(clientId, id),
    pageBySlug: (slug: string) => pageBySlug.get(slug),
    pageByDomain: (domain: string) => pageByDomain.get(domain),
    /** the id of the page holding this slug or domain, any account's */
    slugOwner: (slug: string) => slugTaken.get(slug)?.id ?? null,
    domainOwner: (domain: string) => domainTaken.get(domain)?.id ?? null,
    countPages: (clientId: string) => countPages.get(clientId)!.n,
    removePage: (clientId: string, id: string) => removePage.all(clientId, id).length > 0,
    /** the account's pages that list this check or device */
    pagesShowing: (clientId: string, type: 'check' | 'device', id: string) => pagesShowing.all(clientId, type, id),

    insertNote: (row: NoteRow) => void insertNote.run(...valuesOf(NOTE_COLUMNS, row)),
    updateNote: (row: NoteRow) => void updateNote.run(row.title, row.state, row.starts_at, row.ends_at, row.closed_at, row.updated_at, row.client_id, row.id),
    noteById: (clientId: string, pageId: string, id: string) => noteById.get(clientId, pageId, id),
    notes: (clientId: string, pageId: string, limit: number, offset: number) => notesPage.all(clientId, pageId, limit, offset),
    countNotes: (clientId: string, pageId: string) => countNotes.get(clientId, pageId)!.n,
    visibleNotes: (pageId: string, closedSince: number, limit: number) => visibleNotes.all(pageId, closedSince, limit),
    removeNote: (clientId: string, pageId: string, id: string) => removeNote.all(clientId, pageId, id).length > 0,
    insertUpdate: (row: NoteUpdateRow) => void insertUpdate.run(row.id, row.note_id, row.state, row.body, row.created_at),
    countUpdates: (noteId: string) => countUpdates.get(noteId)!.n,
    /** the updates of these notes, oldest first */
    updatesOf(noteIds: string[]): NoteUpdateRow[] {
      if (!noteIds.length) return []
      return sqlite
        .query<NoteUpdateRow, string[]>(
          `SELECT id, note_id, state, body, created_at FROM status_note_updates WHERE note_id IN (${noteIds.map(() => '?').join(', ')}) ORDER BY created_at, id`,
        )
        .all(...noteIds)
    },
  }
}

export type StatusPagesStore = ReturnType<typeof createStatusPagesStore>
