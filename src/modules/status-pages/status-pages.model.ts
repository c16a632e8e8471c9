import { Type } from '@sinclair/typebox'
import { t, type Static } from 'elysia'

/** Limits: an account's pages, a page's groups and items, a page's notes and a note's updates. */
export const LIMITS = { pages: 20, groups: 20, items: 100, notes: 500, updates: 100 } as const

export const SLUG_PATTERN = '^[a-z0-9](?:[a-z0-9-]{1,62})[a-z0-9]$'
const Slug = t.String({
  minLength: 3,
  maxLength: 64,
  pattern: SLUG_PATTERN,
  description: '3 to 64 of a-z, 0-9 and "-", not starting or ending with "-"; unique on the instance: the page is at /status/{slug}',
})
/** a DNS name of two labels or more, lower or upper case (stored lower case), no port, no trailing dot */
const Domain = t.String({
  minLength: 4,
  maxLength: 253,
  pattern: '^(?=.{4,253}$)([A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z][A-Za-z0-9-]{0,61}[A-Za-z0-9]$',
  description:
    'a host name such as status.example.com, unique on the instance: a request whose Host header is this name gets the page at /. Point the name (or your proxy) at Vigil.',
})
const Title = t.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: '1 to 200 characters, not only blanks' })
const Description = t.String({ maxLength: 1000, description: 'plain text shown under the title' })
export const Theme = t.Union([t.Literal('auto'), t.Literal('light'), t.Literal('dark')], {
  description: "auto follows the visitor's system setting; a visitor may switch it on the page",
})
const ItemKey = t.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[a-z0-9][a-z0-9-]*$',
  description: "the item's public name in badge URLs (/status/{slug}/badge/{key}/status.svg); made up when left out, kept across edits",
})

export const ItemIn = t.Object({
  type: t.Union([t.Literal('check'), t.Literal('device')]),
  id: t.String({ minLength: 1, maxLength: 100, description: "the check's or device's id; it is never shown on the public page" }),
  key: t.Optional(ItemKey),
  label: t.Optional(
    t.Nullable(t.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'the name shown publicly instead of the check or device name' })),
  ),
  show_name: t.Optional(
    t.Boolean({
      default: false,
      description: "without a label: true shows the check's or device's own name (a device's is its hostname unless renamed); false shows a neutral name",
    }),
  ),
  show_response_times: t.Optional(t.Boolean({ default: false, description: 'checks: show the response-time chart and the latest response time' })),
})
export type ItemIn = Static<typeof ItemIn>

export const GroupIn = t.Object({
  name: t.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
  items: t.Array(ItemIn, { maxItems: LIMITS.items }),
})
export type GroupIn = Static<typeof GroupIn>

const Groups = t.Array(GroupIn, { maxItems: LIMITS.groups, description: `at most ${LIMITS.groups} groups and ${LIMITS.items} items in all` })

export const PageCreate = t.Object({
  slug: Slug,
  title: Title,
  description: t.Optional(Description),
  theme: t.Optional(Theme),
  custom_domain: t.Optional(t.Nullable(Domain)),
  published: t.Optional(t.Boolean({ description: 'false: the public paths answer 404, as for a page that does not exist (default true)' })),
  groups: t.Optional(Groups),
})
export type PageCreate = Static<typeof PageCreate>

export const PagePatch = t.Object({
  slug: t.Optional(Slug),
  title: t.Optional(Title),
  description: t.Optional(Description),
  theme: t.Optional(Theme),
  custom_domain: t.Optional(t.Nullable(Domain)),
  published: t.Optional(t.Boolean()),
  groups: t.Optional(Groups),
})
export type PagePatch = Static<typeof PagePatch>

/** An item as stored and answered: every choice explicit. */
export const Item = t.Object({
  type: t.Union([t.Literal('check'), t.Literal('device')]),
  id: t.String(),
  key: t.String(),
  label: t.Nullable(t.String()),
  show_name: t.Boolean(),
  show_response_times: t.Boolean(),
})
export type Item = Static<typeof Item>
export const Group = t.Object({ name: t.String(), items: t.Array(Item) })
export type Group = Static<typeof Group>

const Iso = t.String({ format: 'date-time' })

export const PageResponse = t.Object({
  id: t.String(),
  slug: t.String(),
  title: t.String(),
  description: t.String(),
  theme: Theme,
  custom_domain: t.Nullable(t.String()),
  published: t.Boolean(),
  public_path: t.String({ description: 'where the page is: /status/{slug}' }),
  groups: t.Array(Group),
  created_at: Iso,
  updated_at: Iso,
})
export type PageResponse = Static<typeof PageResponse>

export const PageParams = t.Object({ page_id: t.String({ minLength: 1, maxLength: 100 }) })
export const NoteParams = t.Object({ page_id: t.String({ minLength: 1, maxLength: 100 }), note_id: t.String({ minLength: 1, maxLength: 100 }) })

export const INCIDENT_STATES = ['investigating', 'identified', 'monitoring', 'resolved'] as const
export const MAINTENANCE_STATES = ['scheduled', 'in_progress', 'completed'] as const
export const NoteKind = t.Union([t.Literal('incident'), t.Literal('maintenance')])
export type NoteKind = Static<typeof NoteKind>
export const NoteState = t.Union(
  [
    t.Literal('investigating'),
    t.Literal('identified'),
    t.Literal('monitoring'),
    t.Literal('resolved'),
    t.Literal('scheduled'),
    t.Literal('in_progress'),
    t.Literal('completed'),
  ],
  {
    description: 'incident: investigating, identified, monitoring, resolved; maintenance: scheduled, in_progress, completed',
  },
)
export type NoteState = Static<typeof NoteState>
const Body = t.String({ minLength: 1, maxLength: 5000, pattern: '\\S', description: 'plain text (no markup), 1 to 5,000 characters; line breaks are kept' })

export const NoteCreate = t.Object({
  kind: NoteKind,
  title: Title,
  body: Body,
  state: t.Optional(NoteState),
  starts_at: t.Optional(t.String({ format: 'date-time', description: 'incident: when it began; maintenance: when the window opens (default now)' })),
  ends_at: t.Optional(t.Nullable(t.String({ format: 'date-time', description: 'maintenance: when the window is planned to close' }))),
})
export type NoteCreate = Static<typeof NoteCreate>

export const NotePatch = t.Object({
  title: t.Optional(Title),
  starts_at: t.Optional(t.String({ format: 'date-time' })),
  ends_at: t.Optional(t.Nullable(t.String({ format: 'date-time' }))),
})
export type NotePatch = Static<typeof NotePatch>

export const NoteUpdateCreate = t.Object({ state: NoteState, body: Body })
export type NoteUpdateCreate = Static<typeof NoteUpdateCreate>

export const NoteUpdateResponse = t.Object({ id: t.String(), state: NoteState, body: t.String(), created_at: Iso })
export const NoteResponse = t.Object({
  id: t.String(),
  page_id: t.String(),
  kind: NoteKind,
  title: t.String(),
  state: NoteState,
  starts_at: Iso,
  ends_at: t.Nullable(Iso),
  closed_at: t.Nullable(Iso),
  created_at: Iso,
  updated_at: Iso,
  updates: t.Array(NoteUpdateResponse, { description: 'oldest first; the first is the body the note was posted with' }),
})
export type NoteResponse = Static<typeof NoteResponse>

export const NoteQuery = t.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
})
export const NotePage = t.Object({ items: t.Array(NoteResponse), limit: Type.Integer(), offset: Type.Integer(), total: Type.Integer() })
