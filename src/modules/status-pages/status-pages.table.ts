import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { clients } from '../clients/clients.table'

/**
 * A public status page. Slugs and custom domains are unique across the instance: both name
 * the page without a session (`/status/{slug}`, or `/` under the domain). `groups` is the
 * JSON list of groups and their items as the team set them (status-pages.model.ts, StoredGroup).
 */
export const statusPages = sqliteTable(
  'status_pages',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    slug: text('slug').notNull(),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    /** auto | light | dark */
    theme: text('theme').notNull().default('auto'),
    /** lower-case host name, without port; null when none */
    customDomain: text('custom_domain'),
    /** false: the public paths answer 404 as for a slug that does not exist */
    published: integer('published', { mode: 'boolean' }).notNull().default(true),
    groups: text('groups').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('status_pages_slug').on(t.slug),
    uniqueIndex('status_pages_custom_domain').on(t.customDomain),
    index('status_pages_client').on(t.clientId, t.createdAt),
  ],
)

/**
 * An incident or a maintenance note on a page, with its updates (each one a state and a
 * plain-text body). The note's `state` is its latest update's.
 */
export const statusNotes = sqliteTable(
  'status_notes',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    pageId: text('page_id')
      .notNull()
      .references(() => statusPages.id, { onDelete: 'cascade' }),
    /** incident | maintenance */
    kind: text('kind').notNull(),
    title: text('title').notNull(),
    state: text('state').notNull(),
    /** maintenance: the announced window; incident: when it began (starts_at) */
    startsAt: integer('starts_at').notNull(),
    endsAt: integer('ends_at'),
    /** when it reached resolved or completed */
    closedAt: integer('closed_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('status_notes_page').on(t.pageId, t.startsAt)],
)

export const statusNoteUpdates = sqliteTable(
  'status_note_updates',
  {
    id: text('id').primaryKey(),
    noteId: text('note_id')
      .notNull()
      .references(() => statusNotes.id, { onDelete: 'cascade' }),
    state: text('state').notNull(),
    body: text('body').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('status_note_updates_note').on(t.noteId, t.createdAt)],
)
