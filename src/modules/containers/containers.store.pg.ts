import type { SQL } from 'bun'
import { type Raw, num, numOrNull } from '../../db/pg/rows'
import { C_COLS, type ContainerRow, type ContainersStore, type EventRow, FLEET_EXTRA, FLEET_FROM, FLEET_ORDER, type FleetRow, like } from './containers.store'
import type { EngineRow } from './containers.engines'

const C = 'COLLATE "C"'
/** FLEET_ORDER with text ordered by its bytes, as SQLite orders it */
const ORDER: Record<string, string> = Object.fromEntries(
  Object.entries(FLEET_ORDER).map(([k, v]) => [
    k,
    // an output column's name cannot take a collation in PostgreSQL's ORDER BY: its expression can
    v.replace(/\bdevice_name\b/g, 'COALESCE(d.name, d.hostname, d.id)').replace(/\b(c\.name|c\.device_id|c\.state|d\.id\))/g, `$1 ${C}`),
  ]),
)

const real = (v: unknown) => (v === null || v === undefined ? null : Number(v))

export const containerRow = (r: Raw): ContainerRow => ({
  seq: num(r.seq),
  id: r.id as string,
  client_id: r.client_id as string,
  device_id: r.device_id as string,
  name: r.name as string,
  engine_id: r.engine_id as string,
  image: r.image as string,
  labels: r.labels as string,
  state: r.state as string,
  health: r.health as string,
  exit_code: numOrNull(r.exit_code),
  oom_killed: num(r.oom_killed),
  restart_count: num(r.restart_count),
  started_at: numOrNull(r.started_at),
  finished_at: numOrNull(r.finished_at),
  cpu_percent: real(r.cpu_percent),
  memory_used_bytes: real(r.memory_used_bytes),
  memory_limit_bytes: real(r.memory_limit_bytes),
  net_rx: real(r.net_rx),
  net_tx: real(r.net_tx),
  block_read: real(r.block_read),
  block_write: real(r.block_write),
  pids: numOrNull(r.pids),
  attention: num(r.attention),
  first_seen_at: num(r.first_seen_at),
  last_seen_at: num(r.last_seen_at),
  gone_at: numOrNull(r.gone_at),
  gone_running: num(r.gone_running),
})

const fleetRow = (r: Raw): FleetRow => ({ ...containerRow(r), device_name: r.device_name as string, memory_accounting: num(r.memory_accounting) })

export const engineRow = (r: Raw): EngineRow => ({
  device_id: r.device_id as string,
  client_id: r.client_id as string,
  kind: (r.kind as string | null) ?? null,
  version: (r.version as string | null) ?? null,
  api_version: (r.api_version as string | null) ?? null,
  unavailable_reason: (r.unavailable_reason as string | null) ?? null,
  memory_accounting: num(r.memory_accounting),
  ts: num(r.ts),
})

/** bytea as the Uint8Array SQLite hands back */
export const bytes = (v: unknown) => new Uint8Array(v as Uint8Array)

/**
 * The containers' reads, retention and counts on PostgreSQL: the same answers as the SQLite store
 * (containers.store.contract.test.ts). Nothing is cached here: another hub's ingest changes the
 * counts, so they are counted on each read (from the index the fleet list reads).
 */
export function createContainersStorePg(sql: SQL): ContainersStore {
  return {
    async engine(deviceId) {
      const [r]: Raw[] = await sql`SELECT * FROM container_engines WHERE device_id = ${deviceId}`
      return r ? engineRow(r) : null
    },
    async fleet(clientId, f, sort, limit, offset) {
      const where = ['c.client_id = $1']
      const args: (string | number)[] = [clientId]
      const add = (clause: string, v: string | number) => {
        args.push(v)
        where.push(clause.replace('?', `$${args.length}`))
      }
      if (f.state) add('c.state = ?', f.state)
      if (f.health) add('c.health = ?', f.health)
      if (f.deviceId) add('c.device_id = ?', f.deviceId)
      if (f.attention !== undefined) add('c.attention = ?', f.attention ? 1 : 0)
      // SQLite's LIKE ignores the case of ASCII letters
      if (f.image) add("c.image ILIKE ? ESCAPE '\\'", like(f.image))
      if (f.name) add("c.name ILIKE ? ESCAPE '\\'", like(f.name))
      const w = where.join(' AND ')
      const n = args.length
      const rows: Raw[] = await sql.unsafe(
        `SELECT ${C_COLS}, ${FLEET_EXTRA} ${FLEET_FROM} WHERE ${w} ORDER BY ${ORDER[sort] ?? ORDER.attention} LIMIT $${n + 1} OFFSET $${n + 2}`,
        [...args, limit, offset],
      )
      const [c]: Raw[] = await sql.unsafe(`SELECT count(*)::int AS n FROM containers c WHERE ${w}`, args)
      return { rows: rows.map(fleetRow), total: num(c!.n) }
    },
    async counts(clientId) {
      const [r]: Raw[] = await sql`SELECT count(*)::int AS containers, count(*) FILTER (WHERE state = 'running')::int AS running,
        COALESCE(SUM(attention), 0)::int AS attention FROM containers WHERE client_id = ${clientId}`
      return { containers: num(r!.containers), running: num(r!.running), attention: num(r!.attention) }
    },
    async byId(clientId, deviceId, id) {
      const [r]: Raw[] = await sql`SELECT * FROM containers WHERE id = ${id} AND client_id = ${clientId} AND device_id = ${deviceId}`
      return r ? containerRow(r) : null
    },
    async events(seq, limit, offset) {
      const rows: Raw[] = await sql`SELECT ts, kind, exit_code, restart_count, engine_id FROM container_events WHERE container_seq = ${seq}
        ORDER BY ts DESC, id DESC LIMIT ${limit} OFFSET ${offset}`
      return rows.map(
        (r): EventRow => ({
          ts: num(r.ts),
          kind: r.kind as string,
          exit_code: numOrNull(r.exit_code),
          restart_count: numOrNull(r.restart_count),
          engine_id: r.engine_id as string,
        }),
      )
    },
    async eventCount(seq) {
      const [r]: Raw[] = await sql`SELECT count(*)::int AS n FROM container_events WHERE container_seq = ${seq}`
      return num(r!.n)
    },
    async series(deviceSeq, level, from, to) {
      const rows: Raw[] = await sql`SELECT ts, data FROM container_series WHERE device_seq = ${deviceSeq} AND level = ${level}
        AND ts >= ${from} AND ts < ${to} ORDER BY ts`
      return rows.map((r) => ({ ts: num(r.ts), data: bytes(r.data) }))
    },
    async restartsSince(deviceId, since) {
      const rows: Raw[] = await sql`SELECT e.container_seq AS seq, count(*)::int AS n FROM container_events e JOIN containers c ON c.seq = e.container_seq
        WHERE c.device_id = ${deviceId} AND e.kind = 'restarted' AND e.ts > ${since} GROUP BY e.container_seq`
      return new Map(rows.map((r) => [num(r.seq), num(r.n)]))
    },
    async present(clientId, since) {
      const present = `SELECT ${C_COLS}, ${FLEET_EXTRA} ${FLEET_FROM} WHERE c.gone_at IS NULL`
      const rows: Raw[] =
        clientId === null
          ? await sql.unsafe(`${present} AND c.last_seen_at >= $1`, [since])
          : await sql.unsafe(`${present} AND c.client_id = $1 AND c.last_seen_at >= $2`, [clientId, since])
      return rows.map(fleetRow)
    },
    prune(cut) {
      return sql.begin(async (tx) => {
        let n = 0
        for (const [level, before] of [
          [0, cut.raw],
          [1, cut.m1],
          [2, cut.h1],
        ] as const)
          n += (await tx`DELETE FROM container_series WHERE level = ${level} AND ts < ${before}`).count
        n += (await tx`DELETE FROM containers WHERE gone_at IS NOT NULL AND gone_at < ${cut.gone}`).count
        n += (await tx`DELETE FROM container_events WHERE ts < ${cut.events}`).count
        return n
      })
    },
    countsChanged: () => {},
  }
}
