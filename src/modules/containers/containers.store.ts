import type { Database, SQLQueryBindings } from 'bun:sqlite'
import { type EngineRow, engineRows } from './containers.engines'

export interface ContainerRow {
  seq: number
  id: string
  client_id: string
  device_id: string
  name: string
  engine_id: string
  image: string
  labels: string
  state: string
  health: string
  exit_code: number | null
  oom_killed: number
  restart_count: number
  started_at: number | null
  finished_at: number | null
  cpu_percent: number | null
  memory_used_bytes: number | null
  memory_limit_bytes: number | null
  net_rx: number | null
  net_tx: number | null
  block_read: number | null
  block_write: number | null
  pids: number | null
  attention: number
  first_seen_at: number
  last_seen_at: number
  gone_at: number | null
  /** 1 when it was running as it went */
  gone_running: number
}

export interface EventRow {
  ts: number
  kind: string
  exit_code: number | null
  restart_count: number | null
  engine_id: string
}

/** A fleet list row: the container and its device's display name. */
export type FleetRow = ContainerRow & { device_name: string; memory_accounting: number }

export const COLS =
  'seq, id, client_id, device_id, name, engine_id, image, labels, state, health, exit_code, oom_killed, restart_count, started_at, finished_at, ' +
  'cpu_percent, memory_used_bytes, memory_limit_bytes, net_rx, net_tx, block_read, block_write, pids, attention, first_seen_at, last_seen_at, gone_at, gone_running'
export const COL_LIST = COLS.split(', ')
export const C_COLS = COL_LIST.map((c) => `c.${c}`).join(', ')
export const UPDATABLE = COL_LIST.filter((c) => !['seq', 'id', 'client_id', 'device_id', 'name', 'first_seen_at'].includes(c))

/** a fleet row's device name, and its engine's memory accounting (every container's device has an engine row) */
export const FLEET_EXTRA = 'COALESCE(d.name, d.hostname, d.id) AS device_name, COALESCE(e.memory_accounting, 1) AS memory_accounting'
export const FLEET_FROM = 'FROM containers c JOIN devices d ON d.id = c.device_id LEFT JOIN container_engines e ON e.device_id = c.device_id'

/** The fleet list's orders: each ends on the container's seq, so pages never overlap. */
export const FLEET_ORDER: Record<string, string> = {
  attention: 'c.attention DESC, c.device_id, c.name',
  name: 'c.name, c.seq',
  '-name': 'c.name DESC, c.seq',
  device: 'device_name, c.device_id, c.name',
  state: 'c.state, c.name, c.seq',
  cpu: 'c.cpu_percent IS NULL, c.cpu_percent, c.seq',
  '-cpu': 'c.cpu_percent IS NULL, c.cpu_percent DESC, c.seq',
  memory: 'c.memory_used_bytes IS NULL, c.memory_used_bytes, c.seq',
  '-memory': 'c.memory_used_bytes IS NULL, c.memory_used_bytes DESC, c.seq',
  started_at: 'c.started_at IS NULL, c.started_at, c.seq',
  '-started_at': 'c.started_at IS NULL, c.started_at DESC, c.seq',
}

export interface FleetFilter {
  state?: string
  health?: string
  image?: string
  name?: string
  deviceId?: string
  attention?: boolean
}

/** accounts whose counts are kept at once (the oldest is dropped first) */
const MAX_CACHED_COUNTS = 10_000

/** `%`, `_` and the escape itself match literally in a LIKE pattern */
export const like = (s: string) => `%${s.replace(/[\\%_]/g, (m) => `\\${m}`)}%`

/** The counts of an account's containers the fleet page heads with. */
export interface ContainerCounts {
  containers: number
  running: number
  attention: number
}

/** The cut-offs of one retention pass (ms): series per level, containers gone, history. */
export interface ContainerPruning {
  raw: number
  m1: number
  h1: number
  gone: number
  events: number
}

/**
 * The containers' tables as the services read them, on either engine (this file: SQLite;
 * containers.store.pg.ts: PostgreSQL). Every tenant's read filters by client_id (a device's rows
 * are read after the devices domain found the device in the client); the scrape of every client
 * reads all on purpose. Writes come through the ingest (containers.ingest.ts on SQLite,
 * containers.ingest.pg.ts) and the rollup and retention jobs.
 */
export interface ContainersStore {
  /** what the device's collector last said of its engine */
  engine(deviceId: string): Promise<EngineRow | null>
  /** the account's containers, filtered, in one of FLEET_ORDER's orders, paged, with the filtered total */
  fleet(clientId: string, f: FleetFilter, sort: string, limit: number, offset: number): Promise<{ rows: FleetRow[]; total: number }>
  counts(clientId: string): Promise<ContainerCounts>
  byId(clientId: string, deviceId: string, id: string): Promise<ContainerRow | null>
  /** a container's history, newest first (ties: the later written first) */
  events(seq: number, limit: number, offset: number): Promise<EventRow[]>
  eventCount(seq: number): Promise<number>
  /** a device's packed series of a level within [from, to), oldest first */
  series(deviceSeq: number, level: number, from: number, to: number): Promise<{ ts: number; data: Uint8Array }[]>
  /** restarts per container of a device since a time */
  restartsSince(deviceId: string, since: number): Promise<Map<number, number>>
  /** the containers present and seen since a time, of one account or all (null), with their device's name: the /metrics exposition */
  present(clientId: string | null, since: number): Promise<FleetRow[]>
  /** one retention pass, in one transaction; the rows deleted */
  prune(cut: ContainerPruning): Promise<number>
  /** a write changed what counts() says of this account (null: of every account): the SQLite store keeps them between writes */
  countsChanged(clientId: string | null): void
}

/** SQLite's statements, synchronous: the ingest's group commit and the rollup job run them inside one transaction. */
export function sqliteContainers(sqlite: Database) {
  const ofDevice = sqlite.query<ContainerRow, [string]>(`SELECT ${COLS} FROM containers WHERE device_id = ? ORDER BY name`)
  const byId = sqlite.query<ContainerRow, [string, string, string]>(`SELECT ${COLS} FROM containers WHERE id = ? AND client_id = ? AND device_id = ?`)
  const insert = sqlite.query<{ seq: number }, SQLQueryBindings[]>(
    `INSERT INTO containers (${COLS}) VALUES (NULL${', ?'.repeat(COL_LIST.length - 1)}) RETURNING seq`,
  )
  const update = sqlite.query(`UPDATE containers SET ${UPDATABLE.map((c) => `${c} = ?`).join(', ')} WHERE seq = ?`)
  const addEvent = sqlite.query('INSERT INTO container_events (container_seq, ts, kind, exit_code, restart_count, engine_id) VALUES (?, ?, ?, ?, ?, ?)')
  const events = sqlite.query<EventRow, [number, number, number]>(
    'SELECT ts, kind, exit_code, restart_count, engine_id FROM container_events WHERE container_seq = ? ORDER BY ts DESC, id DESC LIMIT ? OFFSET ?',
  )
  const eventCount = sqlite.query<{ n: number }, [number]>('SELECT COUNT(*) AS n FROM container_events WHERE container_seq = ?')
  const restartsSince = sqlite.query<{ seq: number; n: number }, [string, number]>(
    `SELECT e.container_seq AS seq, COUNT(*) AS n FROM container_events e JOIN containers c ON c.seq = e.container_seq
     WHERE c.device_id = ? AND e.kind = 'restarted' AND e.ts > ? GROUP BY e.container_seq`,
  )
  const putSeries = sqlite.query('INSERT INTO container_series (device_seq, level, ts, data) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING')
  const seriesRange = sqlite.query<{ ts: number; data: Uint8Array }, [number, number, number, number]>(
    'SELECT ts, data FROM container_series WHERE device_seq = ? AND level = ? AND ts >= ? AND ts < ? ORDER BY ts',
  )
  const pruneSeries = sqlite.query('DELETE FROM container_series WHERE level = ? AND ts < ?')
  const pruneGone = sqlite.query('DELETE FROM containers WHERE gone_at IS NOT NULL AND gone_at < ?')
  const pruneEvents = sqlite.query('DELETE FROM container_events WHERE ts < ?')
  const dropGone = sqlite.query(
    'DELETE FROM containers WHERE seq IN (SELECT seq FROM containers WHERE device_id = ? AND gone_at IS NOT NULL ORDER BY gone_at, seq LIMIT ?)',
  )
  const counts = sqlite.query<{ containers: number; running: number; attention: number }, [string]>(
    `SELECT COUNT(*) AS containers, COALESCE(SUM(state = 'running'), 0) AS running, COALESCE(SUM(attention), 0) AS attention
     FROM containers WHERE client_id = ?`,
  )
  const present = `SELECT ${C_COLS}, ${FLEET_EXTRA} ${FLEET_FROM} WHERE c.gone_at IS NULL`
  const all = sqlite.query<FleetRow, [number]>(`${present} AND c.last_seen_at >= ?`)
  const allOf = sqlite.query<FleetRow, [string, number]>(`${present} AND c.client_id = ? AND c.last_seen_at >= ?`)

  const replaceSeries = sqlite.query('INSERT OR REPLACE INTO container_series (device_seq, level, ts, data) VALUES (?, ?, ?, ?)')
  const lastAt = sqlite.query<{ ts: number | null }, [number, number]>('SELECT MAX(ts) AS ts FROM container_series WHERE device_seq = ? AND level = ?')
  const firstAt = sqlite.query<{ ts: number | null }, [number, number]>('SELECT MIN(ts) AS ts FROM container_series WHERE device_seq = ? AND level = ?')
  const seriesDevices = sqlite.query<{ device_seq: number }, []>('SELECT d.seq AS device_seq FROM container_engines e JOIN devices d ON d.id = e.device_id')
  /**
   * Per device, the oldest raw time written since the rollup job last looked: it rolls up from
   * there again, so a replay into minutes already rolled up is counted. In memory: after a
   * restart the job starts from each level's newest bucket, as it does for a block just stored.
   */
  const late = new Map<number, number>()
  const countsOf = new Map<string, { containers: number; running: number; attention: number }>()

  const countsFor = (clientId: string) => {
    let c = countsOf.get(clientId)
    if (!c) {
      if (countsOf.size >= MAX_CACHED_COUNTS) countsOf.delete(countsOf.keys().next().value!)
      countsOf.set(clientId, (c = counts.get(clientId)!))
    }
    return c
  }

  const values = (r: ContainerRow): SQLQueryBindings[] => UPDATABLE.map((c) => r[c as keyof ContainerRow])

  return {
    ...engineRows(sqlite),
    ofDevice: (deviceId: string) => ofDevice.all(deviceId),
    byId: (clientId: string, deviceId: string, id: string) => byId.get(id, clientId, deviceId) ?? null,
    insert: (r: ContainerRow) => insert.get(...COL_LIST.slice(1).map((c) => r[c as keyof ContainerRow]))!.seq,
    update: (r: ContainerRow) => update.run(...values(r), r.seq),
    addEvent: (seq: number, ts: number, kind: string, exitCode: number | null, restartCount: number | null, engineId: string) =>
      addEvent.run(seq, ts, kind, exitCode, restartCount, engineId),
    events: (seq: number, limit: number, offset: number) => events.all(seq, limit, offset),
    eventCount: (seq: number) => eventCount.get(seq)!.n,
    /** restarts per container of a device since a time */
    restartsSince: (deviceId: string, since: number) => new Map(restartsSince.all(deviceId, since).map((r) => [r.seq, r.n])),
    putSeries: (deviceSeq: number, level: number, ts: number, data: Uint8Array) => putSeries.run(deviceSeq, level, ts, data).changes > 0,
    series: (deviceSeq: number, level: number, from: number, to: number) => seriesRange.all(deviceSeq, level, from, to),
    replaceSeries: (deviceSeq: number, level: number, ts: number, data: Uint8Array) => replaceSeries.run(deviceSeq, level, ts, data),
    lastAt: (deviceSeq: number, level: number) => lastAt.get(deviceSeq, level)?.ts ?? null,
    firstAt: (deviceSeq: number, level: number) => firstAt.get(deviceSeq, level)?.ts ?? null,
    seriesDevices: () => seriesDevices.all().map((r) => r.device_seq),
    markLate(deviceSeq: number, ts: number) {
      const o = late.get(deviceSeq)
      if (o === undefined || ts < o) late.set(deviceSeq, ts)
    },
    /** the oldest time written per device since the last call (then forgotten) */
    takeLate(): Map<number, number> {
      const out = new Map(late)
      late.clear()
      return out
    },
    prune: (level: number, before: number) => pruneSeries.run(level, before).changes,
    pruneGone(before: number) {
      const n = pruneGone.run(before).changes
      if (n) countsOf.clear()
      return n
    },
    pruneEvents: (before: number) => pruneEvents.run(before).changes,
    /** forgets a device's `n` longest-gone containers, with their history */
    dropGone: (deviceId: string, n: number) => dropGone.run(deviceId, n).changes,
    /**
     * The account's containers, running and needing attention: kept per account until a write
     * changes one of them (a state, an attention flag, a container come, forgotten or deleted
     * with its device), so the fleet page does not count every row on every read.
     */
    counts: (clientId: string) => countsFor(clientId),
    /** a write changed what counts() says of this account (null: of every account) */
    countsChanged: (clientId: string | null) => (clientId === null ? countsOf.clear() : countsOf.delete(clientId)),
    /** the containers present and seen since a time, of one account or all (null), with their device's name: the /metrics exposition */
    present: (clientId: string | null, since: number) => (clientId === null ? all.all(since) : allOf.all(clientId, since)),
    fleet(clientId: string, f: FleetFilter, sort: string, limit: number, offset: number): { rows: FleetRow[]; total: number } {
      const where = ['c.client_id = ?']
      const args: (string | number)[] = [clientId]
      if (f.state) where.push('c.state = ?') && args.push(f.state)
      if (f.health) where.push('c.health = ?') && args.push(f.health)
      if (f.deviceId) where.push('c.device_id = ?') && args.push(f.deviceId)
      if (f.attention !== undefined) where.push('c.attention = ?') && args.push(f.attention ? 1 : 0)
      if (f.image) where.push("c.image LIKE ? ESCAPE '\\'") && args.push(like(f.image))
      if (f.name) where.push("c.name LIKE ? ESCAPE '\\'") && args.push(like(f.name))
      const w = where.join(' AND ')
      const rows = sqlite
        .query<FleetRow, (string | number)[]>(
          `SELECT ${C_COLS}, ${FLEET_EXTRA} ${FLEET_FROM} WHERE ${w} ORDER BY ${FLEET_ORDER[sort] ?? FLEET_ORDER.attention} LIMIT ? OFFSET ?`,
        )
        .all(...args, limit, offset)
      // unfiltered, the total is the account's count, kept between writes
      const total =
        args.length === 1
          ? countsFor(clientId).containers
          : sqlite.query<{ n: number }, (string | number)[]>(`SELECT COUNT(*) AS n FROM containers c WHERE ${w}`).get(...args)!.n
      return { rows, total }
    },
    transaction: <T>(fn: () => T): T => sqlite.transaction(fn)(),
  }
}

export type SqliteContainers = ReturnType<typeof sqliteContainers>

/** The store on SQLite: its statements run when called (bun:sqlite is synchronous), the answers come as promises. */
export function createContainersStore(s: SqliteContainers): ContainersStore {
  return {
    engine: async (deviceId) => s.engine(deviceId),
    fleet: async (clientId, f, sort, limit, offset) => s.fleet(clientId, f, sort, limit, offset),
    counts: async (clientId) => ({ ...s.counts(clientId) }),
    byId: async (clientId, deviceId, id) => s.byId(clientId, deviceId, id),
    events: async (seq, limit, offset) => s.events(seq, limit, offset),
    eventCount: async (seq) => s.eventCount(seq),
    series: async (deviceSeq, level, from, to) => s.series(deviceSeq, level, from, to),
    restartsSince: async (deviceId, since) => s.restartsSince(deviceId, since),
    present: async (clientId, since) => s.present(clientId, since),
    prune: async (cut) =>
      s.transaction(() => s.prune(0, cut.raw) + s.prune(1, cut.m1) + s.prune(2, cut.h1) + s.pruneGone(cut.gone) + s.pruneEvents(cut.events)),
    countsChanged: (clientId) => s.countsChanged(clientId),
  }
}
