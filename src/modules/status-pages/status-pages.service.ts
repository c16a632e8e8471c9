import { AppError, notFound } from '../../http/errors'
import { toIso, type Clock } from '../../lib/clock'
import { newId } from '../../lib/ids'
import { LIMITS, type Group, type GroupIn, type Item, type PageCreate, type PagePatch, type PageResponse } from './status-pages.model'
import type { StatusDevicesPort } from './status-pages.ports'
import type { PageRow, PageWrite, StatusPagesStore } from './status-pages.store'

export interface StatusPagesDeps {
  store: StatusPagesStore
  clock: Clock
  /** to refuse device ids that are not the account's */
  devices: StatusDevicesPort
  /** a page or its notes changed: its cached renders are stale */
  changed: (pageId: string) => void
  /** host names a custom domain may not take (the instance's own) */
  reservedHosts: string[]
}

export function toPageView(row: PageRow): PageResponse {
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    description: row.description,
    theme: row.theme,
    custom_domain: row.custom_domain,
    published: row.published === 1,
    public_path: `/status/${row.slug}`,
    groups: JSON.parse(row.groups) as Group[],
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  }
}

export async function requirePage(deps: Pick<StatusPagesDeps, 'store'>, clientId: string, pageId: string): Promise<PageRow> {
  const row = await deps.store.pageById(clientId, pageId)
  if (!row) throw notFound('Status page')
  return row
}

export const listPages = async (deps: StatusPagesDeps, clientId: string) => (await deps.store.listPages(clientId)).map(toPageView)
export const getPage = async (deps: StatusPagesDeps, clientId: string, pageId: string) => toPageView(await requirePage(deps, clientId, pageId))

/** A random item key: 8 characters of a-z0-9, so a badge URL names nothing private. */
const randomKey = () => {
  const bytes = crypto.getRandomValues(new Uint8Array(8))
  return Array.from(bytes, (b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36]).join('')
}

/**
 * The groups as stored: every choice explicit, device ids checked against the account, item
 * keys unique on the page. An item the page had before (same type and id) keeps its key, so
 * badge URLs in READMEs survive an edit.
 */
async function knownDevices(deps: StatusPagesDeps, clientId: string, groups: GroupIn[]): Promise<Set<string>> {
  const total = groups.reduce((n, g) => n + g.items.length, 0)
  if (total > LIMITS.items) throw new AppError('invalid_parameter', `A page may show at most ${LIMITS.items} items`, 'groups')
  const deviceIds = groups.flatMap((g) => g.items.filter((i) => i.type === 'device').map((i) => i.id))
  if (!deviceIds.length) return new Set()
  return new Set((await deps.devices.views(clientId, [...new Set(deviceIds)])).map((d) => d.id))
}

/** `known`: the account's devices among those the groups name (knownDevices) */
function normaliseGroups(known: Set<string>, groups: GroupIn[], previous: Group[]): Group[] {
  const oldKeys = new Map(previous.flatMap((g) => g.items.map((i) => [`${i.type}:${i.id}`, i.key] as const)))
  const used = new Set<string>()
  return groups.map((g, gi) => ({
    name: g.name.trim(),
    items: g.items.map((i, ii): Item => {
      const where = `groups[${gi}].items[${ii}]`
      if (i.type === 'device' && !known.has(i.id)) throw new AppError('invalid_parameter', 'No such device in your account', `${where}.id`)
      let key = i.key ?? oldKeys.get(`${i.type}:${i.id}`) ?? randomKey()
      if (used.has(key)) {
        if (i.key) throw new AppError('invalid_parameter', `The key "${i.key}" is used twice on this page`, `${where}.key`)
        key = randomKey()
      }
      used.add(key)
      return {
        type: i.type,
        id: i.id,
        key,
        label: i.label?.trim() || null,
        show_name: i.show_name ?? false,
        show_response_times: i.show_response_times ?? false,
      }
    }),
  }))
}

function checkDomain(deps: StatusPagesDeps, domain: string | null): string | null {
  if (domain === null) return null
  const host = domain.toLowerCase()
  if (deps.reservedHosts.includes(host)) throw new AppError('invalid_parameter', "This is the instance's own host name", 'custom_domain')
  return host
}

/** the page as written, or the refusal as its error */
function written(w: PageWrite): PageRow {
  if ('page' in w) return w.page
  if (w.refused === 'page_limit') throw new AppError('conflict', `An account may have at most ${LIMITS.pages} status pages; delete one first`)
  if (w.refused === 'slug_taken') throw new AppError('conflict', 'This slug is taken on this instance; choose another', 'slug')
  throw new AppError('conflict', 'This domain is used by another status page on this instance', 'custom_domain')
}

export async function createPage(deps: StatusPagesDeps, clientId: string, body: PageCreate): Promise<PageResponse> {
  const now = deps.clock.now()
  const groups = body.groups ?? []
  const known = await knownDevices(deps, clientId, groups)
  const row = written(
    await deps.store.createPage(
      {
        id: newId('stp'),
        client_id: clientId,
        slug: body.slug,
        title: body.title.trim(),
        description: body.description?.trim() ?? '',
        theme: body.theme ?? 'auto',
        custom_domain: checkDomain(deps, body.custom_domain ?? null),
        published: body.published === false ? 0 : 1,
        groups: JSON.stringify(normaliseGroups(known, groups, [])),
        created_at: now,
        updated_at: now,
      },
      LIMITS.pages,
    ),
  )
  deps.changed(row.id)
  return toPageView(row)
}

/** Changes what was sent; a field left out is unchanged. */
export async function updatePage(deps: StatusPagesDeps, clientId: string, pageId: string, patch: PagePatch): Promise<PageResponse> {
  const known = patch.groups ? await knownDevices(deps, clientId, patch.groups) : new Set<string>()
  const domain = patch.custom_domain === undefined ? undefined : checkDomain(deps, patch.custom_domain)
  const now = deps.clock.now()
  const w = await deps.store.editPage(clientId, pageId, (old) => ({
    ...old,
    slug: patch.slug ?? old.slug,
    title: patch.title?.trim() ?? old.title,
    description: patch.description?.trim() ?? old.description,
    theme: patch.theme ?? old.theme,
    custom_domain: domain === undefined ? old.custom_domain : domain,
    published: patch.published === undefined ? old.published : patch.published ? 1 : 0,
    // items the page had keep their keys: read from the groups as stored, inside the write
    groups: patch.groups ? JSON.stringify(normaliseGroups(known, patch.groups, JSON.parse(old.groups) as Group[])) : old.groups,
    updated_at: now,
  }))
  if (!w) throw notFound('Status page')
  const row = written(w)
  deps.changed(pageId)
  return toPageView(row)
}

/** Deletes a page with its notes; its slug and domain are free at once. */
export async function deletePage(deps: StatusPagesDeps, clientId: string, pageId: string): Promise<void> {
  if (!(await deps.store.removePage(clientId, pageId))) throw notFound('Status page')
  deps.changed(pageId)
}

/**
 * A check or device the account deleted leaves every page that listed it, so a page's groups
 * never hold an id that a later object could be mistaken for; the pages' renders are dropped.
 */
export async function forgetItem(deps: StatusPagesDeps, clientId: string, type: Item['type'], id: string): Promise<void> {
  for (const pageId of await deps.store.forgetItem(clientId, type, id, deps.clock.now())) deps.changed(pageId)
}

/** The ids of the account's pages that show this check or device (their renders go stale when its state moves). */
export const pagesShowing = async (deps: Pick<StatusPagesDeps, 'store'>, clientId: string, type: Item['type'], id: string) =>
  (await deps.store.pagesShowing(clientId, type, id)).map((p) => p.id)
