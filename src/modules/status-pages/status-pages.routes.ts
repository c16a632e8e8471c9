import { Elysia, t } from 'elysia'
import { authGuards } from '../../http/auth'
import { jsonInput, queryInput } from '../../http/input'
import { routeErrors } from '../../http/openapi-errors'
import type { Authenticator } from '../../http/principal'
import {
  LIMITS,
  NoteCreate,
  NotePage,
  NoteParams,
  NotePatch,
  NoteQuery,
  NoteResponse,
  NoteUpdateCreate,
  PageCreate,
  PageParams,
  PagePatch,
  PageResponse,
} from './status-pages.model'
import { addNoteUpdate, createNote, deleteNote, getNote, listNotes, updateNote } from './status-pages.notes'
import { createPage, deletePage, getPage, listPages, updatePage, type StatusPagesDeps } from './status-pages.service'

const tags = ['status-pages']
const managers = { roles: ['owner' as const, 'admin' as const] }
const pageCreate = jsonInput(PageCreate)
const pagePatch = jsonInput(PagePatch)
const noteCreate = jsonInput(NoteCreate)
const notePatch = jsonInput(NotePatch)
const noteUpdate = jsonInput(NoteUpdateCreate)
const noteQuery = queryInput(NoteQuery)
const PUBLIC = 'The public page is GET /status/{slug} (HTML), /status/{slug}.json and its badges; docs/status-pages.md.'

/** The team's side of status pages: any member reads; owners and admins change pages and post notes. */
export function statusPagesRoutes(deps: StatusPagesDeps, auth: Authenticator) {
  return new Elysia({ prefix: '/v1/status-pages' })
    .use(authGuards(auth))
    .get('', ({ user }) => listPages(deps, user.clientId), {
      user: true,
      response: { 200: t.Array(PageResponse) },
      detail: { tags, summary: "The account's status pages" },
    })
    .post(
      '',
      async ({ user, body, set }) => {
        const page = await createPage(deps, user.clientId, pageCreate.read(body))
        set.status = 201
        return page
      },
      {
        user: managers,
        response: { 201: PageResponse },
        detail: {
          ...routeErrors('conflict', 'invalid_parameter'),
          ...pageCreate.doc,
          tags,
          summary: 'Create a status page',
          description: `${PUBLIC} A slug or custom domain another page has is 409 conflict; a device id not of this account is 400 invalid_parameter. At most ${LIMITS.pages} pages per account.`,
        },
      },
    )
    .get('/:page_id', ({ user, params }) => getPage(deps, user.clientId, params.page_id), {
      user: true,
      params: PageParams,
      response: { 200: PageResponse },
      detail: { ...routeErrors('not_found'), tags, summary: 'One status page' },
    })
    .patch('/:page_id', ({ user, params, body }) => updatePage(deps, user.clientId, params.page_id, pagePatch.read(body)), {
      user: managers,
      params: PageParams,
      response: { 200: PageResponse },
      detail: {
        ...routeErrors('not_found', 'conflict', 'invalid_parameter'),
        ...pagePatch.doc,
        tags,
        summary: 'Change a status page; groups, when sent, replace the groups (items keep their keys)',
      },
    })
    .delete(
      '/:page_id',
      async ({ user, params, set }) => {
        await deletePage(deps, user.clientId, params.page_id)
        set.status = 204
      },
      { user: managers, params: PageParams, detail: { ...routeErrors('not_found'), tags, summary: 'Delete a status page with its notes' } },
    )
    .get('/:page_id/notes', ({ user, params, request }) => listNotes(deps, user.clientId, params.page_id, noteQuery.read(request)), {
      user: true,
      params: PageParams,
      response: { 200: NotePage },
      detail: { ...routeErrors('not_found'), ...noteQuery.doc, tags, summary: "A page's incident and maintenance notes, latest start first" },
    })
    .post(
      '/:page_id/notes',
      async ({ user, params, body, set }) => {
        const note = await createNote(deps, user.clientId, params.page_id, noteCreate.read(body))
        set.status = 201
        return note
      },
      {
        user: managers,
        params: PageParams,
        response: { 201: NoteResponse },
        detail: {
          ...routeErrors('not_found', 'conflict', 'invalid_parameter'),
          ...noteCreate.doc,
          tags,
          summary: 'Post an incident or a maintenance note',
          description:
            'state defaults to investigating (incident) or scheduled (maintenance); a state of the other kind is 400 invalid_parameter. ' +
            `The body is plain text. At most ${LIMITS.notes} notes per page.`,
        },
      },
    )
    .get('/:page_id/notes/:note_id', ({ user, params }) => getNote(deps, user.clientId, params.page_id, params.note_id), {
      user: true,
      params: NoteParams,
      response: { 200: NoteResponse },
      detail: { ...routeErrors('not_found'), tags, summary: 'One note with its updates' },
    })
    .patch('/:page_id/notes/:note_id', ({ user, params, body }) => updateNote(deps, user.clientId, params.page_id, params.note_id, notePatch.read(body)), {
      user: managers,
      params: NoteParams,
      response: { 200: NoteResponse },
      detail: { ...routeErrors('not_found', 'invalid_parameter'), ...notePatch.doc, tags, summary: "Correct a note's title or times" },
    })
    .delete(
      '/:page_id/notes/:note_id',
      async ({ user, params, set }) => {
        await deleteNote(deps, user.clientId, params.page_id, params.note_id)
        set.status = 204
      },
      { user: managers, params: NoteParams, detail: { ...routeErrors('not_found'), tags, summary: 'Delete a note with its updates' } },
    )
    .post(
      '/:page_id/notes/:note_id/updates',
      async ({ user, params, body, set }) => {
        const note = await addNoteUpdate(deps, user.clientId, params.page_id, params.note_id, noteUpdate.read(body))
        set.status = 201
        return note
      },
      {
        user: managers,
        params: NoteParams,
        response: { 201: NoteResponse },
        detail: {
          ...routeErrors('not_found', 'conflict', 'invalid_parameter'),
          ...noteUpdate.doc,
          tags,
          summary: "Post an update to a note: its state becomes the note's (resolved or completed closes it)",
          description: `At most ${LIMITS.updates} updates per note.`,
        },
      },
    )
}
