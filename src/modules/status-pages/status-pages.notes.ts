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
import type { NoteEdit, NoteRow, NoteUpdateRow, NoteWrite } from './status-pages.store'

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

/** the note as written, or the refusal as its error */
function written(w: NoteWrite): NoteRow {
  if ('note' in w) return w.note
  if (w.refused === 'no_page') throw notFound('Status page')
  if (w.refused === 'no_note') throw notFound('Note')
  if (w.refused === 'note_limit') throw new AppError('conflict', `A page keeps at most ${LIMITS.notes} notes; delete old ones first`)
  throw new AppError('conflict', `A note keeps at most ${LIMITS.updates} updates`)
}

async function requireNote(deps: StatusPagesDeps, clientId: string, pageId: string, noteId: string): Promise<NoteRow> {
  await requirePage(deps, clientId, pageId)
  const row = await deps.store.noteById(clientId, pageId, noteId)
  if (!row) throw notFound('Note')
  return row
}

const viewOf = async (deps: StatusPagesDeps, row: NoteRow) => toNoteView(row, await deps.store.updatesOf([row.id]))

function checkWindow(startsAt: number, endsAt: number | null) {
  if (endsAt !== null && endsAt < startsAt) throw new AppError('invalid_parameter', 'ends_at is before starts_at', 'ends_at')
}

export async function listNotes(deps: StatusPagesDeps, clientId: string, pageId: string, q: { limit: number; offset: number }) {
  await requirePage(deps, clientId, pageId)
  const [rows, total] = await Promise.all([deps.store.notes(clientId, pageId, q.limit, q.offset), deps.store.countNotes(clientId, pageId)])
  const updates = await deps.store.updatesOf(rows.map((r) => r.id))
  return {
    items: rows.map((r) =>
      toNoteView(
        r,
        updates.filter((u) => u.note_id === r.id),
      ),
    ),
    limit: q.limit,
    offset: q.offset,
    total,
  }
}

export const getNote = async (deps: StatusPagesDeps, clientId: string, pageId: string, noteId: string) =>
  viewOf(deps, await requireNote(deps, clientId, pageId, noteId))

/** An incident or maintenance note with its first update (the body). */
export async function createNote(deps: StatusPagesDeps, clientId: string, pageId: string, body: NoteCreate): Promise<NoteResponse> {
  const now = deps.clock.now()
  const state = body.state ?? (body.kind === 'incident' ? 'investigating' : 'scheduled')
  checkState(body.kind, state, 'state')
  const startsAt = body.starts_at ? Date.parse(body.starts_at) : now
  const endsAt = body.ends_at ? Date.parse(body.ends_at) : null
  checkWindow(startsAt, endsAt)
  const note: NoteRow = {
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
  const row = written(await deps.store.createNote(note, { id: newId('stu'), note_id: note.id, state, body: plain(body.body), created_at: now }, LIMITS.notes))
  deps.changed(pageId)
  return viewOf(deps, row)
}

/** A new update: its state becomes the note's; resolved or completed closes it, any other state opens it again. */
export async function addNoteUpdate(deps: StatusPagesDeps, clientId: string, pageId: string, noteId: string, body: NoteUpdateCreate): Promise<NoteResponse> {
  const now = deps.clock.now()
  const edit: NoteEdit = (old) => {
    checkState(old.kind, body.state, 'state')
    const closes = body.state === CLOSING[old.kind]
    return {
      note: { ...old, state: body.state, closed_at: closes ? (old.closed_at ?? now) : null, updated_at: now },
      update: { id: newId('stu'), note_id: noteId, state: body.state, body: plain(body.body), created_at: now },
    }
  }
  const row = written(await deps.store.editNote(clientId, pageId, noteId, edit, LIMITS.updates))
  deps.changed(pageId)
  return viewOf(deps, row)
}

export async function updateNote(deps: StatusPagesDeps, clientId: string, pageId: string, noteId: string, patch: NotePatch): Promise<NoteResponse> {
  const now = deps.clock.now()
  const edit: NoteEdit = (old) => {
    const note: NoteRow = {
      ...old,
      title: patch.title?.trim() ?? old.title,
      starts_at: patch.starts_at ? Date.parse(patch.starts_at) : old.starts_at,
      ends_at: patch.ends_at === undefined ? old.ends_at : patch.ends_at === null ? null : Date.parse(patch.ends_at),
      updated_at: now,
    }
    checkWindow(note.starts_at, note.ends_at)
    return { note }
  }
  const row = written(await deps.store.editNote(clientId, pageId, noteId, edit, LIMITS.updates))
  deps.changed(pageId)
  return viewOf(deps, row)
}

export async function deleteNote(deps: StatusPagesDeps, clientId: string, pageId: string, noteId: string): Promise<void> {
  await requirePage(deps, clientId, pageId)
  if (!(await deps.store.removeNote(clientId, pageId, noteId))) throw notFound('Note')
  deps.changed(pageId)
}
