/**
 * The fleet's containers page keeps its filters, sort and page in the URL (?name=&image=&state=&
 * health=&device=&attention=1&sort=&page=), so a reload, the back button and a shared link show the same list.
 * Pure: the URL in, the API's query out.
 */
import type { FleetSort, Health, ShownState } from './types'

export const PAGE_SIZE = 100
/** the API's bounds on the two searches */
export const NAME_MAX = 255
export const IMAGE_MAX = 512

export const STATES: ShownState[] = ['running', 'restarting', 'paused', 'created', 'removing', 'exited', 'dead', 'gone']
export const HEALTHS: Health[] = ['healthy', 'unhealthy', 'starting', 'none']
export const SORTS: FleetSort[] = ['attention', 'name', '-name', 'device', 'state', 'cpu', '-cpu', 'memory', '-memory', 'started_at', '-started_at']

export const SORT_LABELS: Record<FleetSort, string> = {
  attention: 'Needs attention first',
  name: 'Name, A to Z',
  '-name': 'Name, Z to A',
  device: 'Device',
  state: 'State',
  cpu: 'CPU, lowest first',
  '-cpu': 'CPU, highest first',
  memory: 'Memory, lowest first',
  '-memory': 'Memory, highest first',
  started_at: 'Started, oldest first',
  '-started_at': 'Started, newest first',
}

export interface FleetFilters {
  name: string
  image: string
  state: ShownState | null
  health: Health | null
  device: string | null
  /** only those needing attention */
  attention: boolean
  sort: FleetSort
  /** zero-based */
  page: number
}

const oneOf = <T extends string>(list: readonly T[], v: string | null): T | null => (v !== null && (list as readonly string[]).includes(v) ? (v as T) : null)

export function parseFleet(q: URLSearchParams): FleetFilters {
  const page = Number(q.get('page') ?? '1')
  return {
    name: (q.get('name') ?? '').slice(0, NAME_MAX),
    image: (q.get('image') ?? '').slice(0, IMAGE_MAX),
    state: oneOf(STATES, q.get('state')),
    health: oneOf(HEALTHS, q.get('health')),
    device: q.get('device')?.slice(0, 100) || null,
    attention: q.get('attention') === '1',
    sort: oneOf(SORTS, q.get('sort')) ?? 'attention',
    page: Number.isInteger(page) && page > 1 ? Math.min(page - 1, 10_000) : 0,
  }
}

/** GET /v1/containers's query for these filters (blank searches left out: the API refuses an empty one). */
export function fleetQuery(f: FleetFilters): Record<string, string | number> {
  const q: Record<string, string | number> = { sort: f.sort, limit: PAGE_SIZE, offset: f.page * PAGE_SIZE }
  const name = f.name.trim()
  const image = f.image.trim()
  if (name) q.name = name
  if (image) q.image = image
  if (f.state) q.state = f.state
  if (f.health) q.health = f.health
  if (f.device) q.device_id = f.device
  if (f.attention) q.needs_attention = 'true'
  return q
}

export const isFiltered = (f: FleetFilters) => Boolean(f.name.trim() || f.image.trim() || f.state || f.health || f.device || f.attention)

/**
 * The table's sortable columns and the API's orders behind them: the first click's order (figures
 * and times from the highest, names from A), then the other way where the API has one.
 */
export const COLUMN_SORTS: Record<string, { first: FleetSort; second: FleetSort | null }> = {
  name: { first: 'name', second: '-name' },
  device: { first: 'device', second: null },
  state: { first: 'state', second: null },
  cpu: { first: '-cpu', second: 'cpu' },
  memory: { first: '-memory', second: 'memory' },
  started_at: { first: '-started_at', second: 'started_at' },
}

/** The column a sort orders by, and its direction as the header shows it (aria-sort); null for "needs attention first". */
export function columnOf(sort: FleetSort): { key: string; desc: boolean } | null {
  if (sort === 'attention') return null
  return { key: sort.replace(/^-/, ''), desc: sort.startsWith('-') }
}

/** The sort a click on a column's header asks for: its first order, then the other way and back. */
export function nextSort(current: FleetSort, key: string): FleetSort {
  const col = COLUMN_SORTS[key]
  if (!col) return current
  return current === col.first && col.second ? col.second : col.first
}
