import { AppError, notFound } from '../../http/errors'
import { toIso } from '../../lib/clock'
import { newId } from '../../lib/ids'
import {
  INCIDENT_STATES,
  LIMITS,
  MAINTENANCE_STATES,
  type NoteCreate,
  type NoteKind,
  type NotePatch,
  type NoteResponse,
  type NoteState,
  type NoteUpdateCreate,
} from './status-pages.model'
import { requirePage, type StatusPagesDeps } from './status-pages.service'
import type { NoteRow, NoteUpdateRow } from './status-pages.store'

const STATES: Record<NoteKind, readonly string[]> = { incident: INCIDENT_STATES, maintenance: MAINTENANCE_STATES }
/** the state that closes a note */
export const CLOSING: Record<NoteKind, NoteState> = { incident: 'resolved', maintenance: 'completed' }

function checkState(kind: NoteKind, state: NoteState, param: string) {
  if (!STATES[kind].includes(state)) {
    throw new AppError('invalid_parameter', `A ${kind} note's state is one of ${STATES[kind].join(', ')}`, param)
  }
}

/** Line ends made uniform; the text is kept as typed otherwise (it is escaped where it is shown). */
const plain = (body: string) => body.replace(/\r\n?/g, '\n').trim()

function toNoteView(row: NoteRow, updates: NoteUpdateRow[]): NoteResponse {
  return {
    id: row.id,
    page_id: row.page_id,
    kind: row.kind,
    title: row.title,
    state: row.state as NoteState,
    starts_at: toIso(row.starts_at),
    ends_at: row.ends_at === null ? null : toIso(row.ends_at),
    closed_at: row.closed_at === null ? null : toIso(row.closed_at),
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
    updates: updates.map((u) => ({ id: u.id, state: u.state as NoteState, body: u.body, created_at: toIso(u.created_at) })),
  }
}

function requireNote(deps: StatusPagesDeps, clientId: string, pageId: string, noteId: string): NoteRow {
  requirePage(deps, clientId, pageId)
  const row = deps.store.noteById(clientId, pageId, noteId)
  if (!row) throw notFound('Note')
  return row
}

const viewOf = (deps: StatusPagesDeps, row: NoteRow) => toNoteView(row, deps.store.updatesOf([row.id]))

function checkWindow(startsAt: number, endsAt: number | null) {
  if (endsAt !== null && endsAt < startsAt) throw new AppError('invalid_parameter', 'ends_at is before starts_at', 'ends_at')
}

export function listNotes(deps: StatusPagesDeps, clientId: string, pageId: string, q: { limit: number; offset: number }) {
  requirePage(deps, clientId, pageId)
  const rows = deps.store.notes(clientId, pageId, q.limit, q.offset)
  const updates = deps.store.updatesOf(rows.map((r) => r.id))
  return {
    items: rows.map((r) =>
      toNoteView(
        r,
        updates.filter((u) => u.note_id === r.id),
      ),
    ),
    limit: q.limit,
    offset: q.offset,
    total: deps.store.countNotes(clientId, pageId),
  }
}

export const getNote = (deps: StatusPagesDeps, clientId: string, pageId: string, noteId: string) => viewOf(deps, requireNote(deps, clientId, pageId, noteId))

/** An incident or maintenance note with its first update (the body). */
export function createNote(deps: StatusPagesDeps, clientId: string, pageId: string, body: NoteCreate): NoteResponse {
  const now = deps.clock.now()
  const state = body.state ?? (body.kind === 'incident' ? 'investigating' : 'scheduled')
  checkState(body.kind, state, 'state')
  const startsAt = body.starts_at ? Date.parse(body.starts_at) : now
  const endsAt = body.ends_at ? Date.parse(body.ends_at) : null
  checkWindow(startsAt, endsAt)
  const row = deps.store.transaction(() => {
    requirePage(deps, clientId, pageId)
    if (deps.store.countNotes(clientId, pageId) >= LIMITS.notes) {
      throw new AppError('conflict', `A page keeps at most ${LIMITS.notes} notes; delete old ones first`)
    }
    const row: NoteRow = {
      id: newId('stn'),
      client_id: clientId,
      page_id: pageId,
      kind: body.kind,
      title: body.title.trim(),
      state,
      starts_at: startsAt,
      ends_at: endsAt,
      closed_at: state === CLOSING[body.kind] ? now : null,
      created_at: now,
      updated_at: now,
    }
    deps.store.insertNote(row)
    deps.store.insertUpdate({ id: newId('stu'), note_id: row.id, state, body: plain(body.body), created_at: now })
    return row
  })
  deps.changed(pageId)
  return viewOf(deps, row)
}

/** A new update: its state becomes the note's; resolved or completed closes it, any other state opens it again. */
export function addNoteUpdate(deps: StatusPagesDeps, clientId: string, pageId: string, noteId: string, body: NoteUpdateCreate): NoteResponse {
  const now = deps.clock.now()
  const row = deps.store.transaction(() => {
    const old = requireNote(deps, clientId, pageId, noteId)
    checkState(old.kind, body.state, 'state')
    if (deps.store.countUpdates(noteId) >= LIMITS.updates) throw new AppError('conflict', `A note keeps at most ${LIMITS.updates} updates`)
    const closes = body.state === CLOSING[old.kind]
    const row: NoteRow = { ...old, state: body.state, closed_at: closes ? (old.closed_at ?? now) : null, updated_at: now }
    deps.store.updateNote(row)
    deps.store.insertUpdate({ id: newId('stu'), note_id: noteId, state: body.state, body: plain(body.body), created_at: now })
    return row
  })
  deps.changed(pageId)
  return viewOf(deps, row)
}

export function updateNote(deps: StatusPagesDeps, clientId: string, pageId: string, noteId: string, patch: NotePatch): NoteResponse {
  const row = deps.store.transaction(() => {
    const old = requireNote(deps, clientId, pageId, noteId)
    const row: NoteRow = {
      ...old,
      title: patch.title?.trim() ?? old.title,
      starts_at: patch.starts_at ? Date.parse(patch.starts_at) : old.starts_at,
      ends_at: patch.ends_at === undefined ? old.ends_at : patch.ends_at === null ? null : Date.parse(patch.ends_at),
      updated_at: deps.clock.now(),
    }
    checkWindow(row.starts_at, row.ends_at)
    deps.store.updateNote(row)
    return row
  })
  deps.changed(pageId)
  return viewOf(deps, row)
}

export function deleteNote(deps: StatusPagesDeps, clientId: string, pageId: string, noteId: string): void {
  requirePage(deps, clientId, pageId)
  if (!deps.store.removeNote(clientId, pageId, noteId)) throw notFound('Note')
  deps.changed(pageId)
}
