import type { SQL } from 'bun'
import { type Raw, num, numOrNull } from '../../db/pg/rows'
import { newId } from '../../lib/ids'
import { advance, resultRowOf } from './checks.attempt'
import { dropResultsPg, recordResultPg } from './checks.results.pg'
import { CHECK_COLUMNS, CHECK_NAMES, type ChecksStore, changedColumns, PLACE_COLUMNS } from './checks.store'
import type { CheckChanges, CheckRow, PlaceRow } from './checks.store.rows'

const numOr = (v: unknown) => numOrNull(v)

export const checkRow = (r: Raw): CheckRow => ({
  id: r.id as string,
  seq: num(r.seq),
  client_id: r.client_id as string,
  name: r.name as string,
  kind: r.kind as string,
  settings: r.settings as string,
  interval_s: num(r.interval_s),
  timeout_ms: num(r.timeout_ms),
  down_after: num(r.down_after),
  up_after: num(r.up_after),
  run_on_hub: num(r.run_on_hub),
  device_ids: r.device_ids as string,
  depends_on_device_id: (r.depends_on_device_id as string | null) ?? null,
  paused: num(r.paused),
  hb_token_hash: (r.hb_token_hash as string | null) ?? null,
  hb_token_hint: (r.hb_token_hint as string | null) ?? null,
  state: r.state as string,
  state_since: numOr(r.state_since),
  last_checked_at: numOr(r.last_checked_at),
  last_response_ms: numOr(r.last_response_ms),
  last_status_code: numOr(r.last_status_code),
  last_error: (r.last_error as string | null) ?? null,
  cert_expires_at: numOr(r.cert_expires_at),
  created_at: num(r.created_at),
  updated_at: num(r.updated_at),
})

const placeRow = (r: Raw): PlaceRow => ({
  check_seq: num(r.check_seq),
  place: num(r.place),
  state: r.state as string,
  fails: num(r.fails),
  successes: num(r.successes),
  last_ts: numOr(r.last_ts),
  last_ok: numOr(r.last_ok),
  last_response_ms: numOr(r.last_response_ms),
  last_error: (r.last_error as string | null) ?? null,
})

const one = async (q: Promise<Raw[]>) => {
  const [r] = await q
  return r ? checkRow(r) : null
}

/** sets the changed columns of a check of this client */
const update = (tx: SQL, clientId: string, id: string, changes: CheckChanges) => {
  const cols = changedColumns(changes)
  if (!cols.length) return Promise.resolve()
  return tx.unsafe(
    `UPDATE checks SET ${cols.map((c, i) => `${c} = $${i + 1}`).join(', ')} WHERE client_id = $${cols.length + 1} AND id = $${cols.length + 2}`,
    [...cols.map((c) => changes[c] ?? null), clientId, id],
  )
}

/**
 * The checks and check_places tables on PostgreSQL: the same answers as the SQLite store
 * (checks.store.contract.test.ts). Text is ordered by its bytes (COLLATE "C"), as SQLite orders
 * it. Recording an attempt holds the check's row (`FOR UPDATE`) for its transaction: two hubs
 * recording results of one check (the hub's own and an agent's, or a heartbeat call and the
 * sweep) take turns, each moving the state machines from what the other wrote, so an incident
 * opens and closes once. New checks take the next seq under one advisory lock.
 */
export function createChecksStorePg(sql: SQL): ChecksStore {
  const places = async (tx: SQL, seq: number) =>
    ((await tx.unsafe(`SELECT ${PLACE_COLUMNS} FROM check_places WHERE check_seq = $1 ORDER BY place`, [seq])) as Raw[]).map(placeRow)
  const closeIncident = (tx: SQL, id: string, at: number) => tx`UPDATE check_incidents SET ended_at = ${at} WHERE check_id = ${id} AND ended_at IS NULL`

  return {
    async list(clientId) {
      return ((await sql.unsafe(`SELECT ${CHECK_COLUMNS} FROM checks WHERE client_id = $1 ORDER BY created_at, id COLLATE "C"`, [clientId])) as Raw[]).map(
        checkRow,
      )
    },
    byId: (clientId, id) => one(sql.unsafe(`SELECT ${CHECK_COLUMNS} FROM checks WHERE client_id = $1 AND id = $2`, [clientId, id])),
    anyById: (id) => one(sql.unsafe(`SELECT ${CHECK_COLUMNS} FROM checks WHERE id = $1`, [id])),
    byTokenHash: (hash) => one(sql.unsafe(`SELECT ${CHECK_COLUMNS} FROM checks WHERE hb_token_hash = $1`, [hash])),
    async all() {
      return ((await sql.unsafe(`SELECT ${CHECK_COLUMNS} FROM checks ORDER BY created_at, id COLLATE "C"`)) as Raw[]).map(checkRow)
    },
    async count(clientId) {
      const [r]: { n: number }[] = await sql`SELECT count(*)::int AS n FROM checks WHERE client_id = ${clientId}`
      return r!.n
    },
    async downCount(clientId) {
      const [r]: { n: number }[] = await sql`SELECT count(*)::int AS n FROM checks WHERE client_id = ${clientId} AND paused = 0 AND state = 'down'`
      return r!.n
    },
    places: (seq) => places(sql, seq),
    create(row, max) {
      return sql.begin(async (tx) => {
        // one creation at a time across hubs: the seq is the next free one, the client's count is exact
        await tx`SELECT pg_advisory_xact_lock(hashtextextended('vigil.checks.create', 0))`
        const [c]: { n: number }[] = await tx`SELECT count(*)::int AS n FROM checks WHERE client_id = ${row.client_id}`
        if (c!.n >= max) return null
        const [s]: Raw[] = await tx`SELECT coalesce(max(seq), 0) + 1 AS n FROM checks`
        const full: CheckRow = { ...row, seq: num(s!.n) }
        await tx.unsafe(
          `INSERT INTO checks (${CHECK_COLUMNS}) VALUES (${CHECK_NAMES.map((_, i) => `$${i + 1}`).join(', ')})`,
          CHECK_NAMES.map((c) => full[c as keyof CheckRow]),
        )
        return full
      })
    },
    update(clientId, id, changes, effects = {}) {
      return sql.begin(async (tx) => {
        const old = await one(tx.unsafe(`SELECT ${CHECK_COLUMNS} FROM checks WHERE client_id = $1 AND id = $2 FOR UPDATE`, [clientId, id]))
        if (!old) return null
        await update(tx, clientId, id, changes)
        if (effects.dropPlaces) await tx`DELETE FROM check_places WHERE check_seq = ${old.seq}`
        if (effects.closeIncidentAt !== undefined) await closeIncident(tx, id, effects.closeIncidentAt)
        return one(tx.unsafe(`SELECT ${CHECK_COLUMNS} FROM checks WHERE id = $1`, [id]))
      })
    },
    remove(clientId, id) {
      return sql.begin(async (tx) => {
        const [r]: Raw[] = await tx`DELETE FROM checks WHERE client_id = ${clientId} AND id = ${id} RETURNING seq`
        if (!r) return false
        await dropResultsPg(tx, num(r.seq))
        await tx`DELETE FROM check_runs WHERE check_id = ${id}`
        return true
      })
    },
    record(checkId, place, attempt, active) {
      return sql.begin(async (tx) => {
        const check = await one(tx.unsafe(`SELECT ${CHECK_COLUMNS} FROM checks WHERE id = $1 FOR UPDATE`, [checkId]))
        if (!check) return null
        if (!(await recordResultPg(tx, resultRowOf(check.seq, place, attempt)))) return null
        const step = advance(check, await places(tx, check.seq), place, attempt, active)
        if ('late' in step) return { check, place, attempt, from: step.from, to: step.from }
        const p = step.place
        await tx`INSERT INTO check_places (check_seq, place, state, fails, successes, last_ts, last_ok, last_response_ms, last_error)
          VALUES (${p.check_seq}, ${p.place}, ${p.state}, ${p.fails}, ${p.successes}, ${p.last_ts}, ${p.last_ok}, ${p.last_response_ms}, ${p.last_error})
          ON CONFLICT (check_seq, place) DO UPDATE SET state = EXCLUDED.state, fails = EXCLUDED.fails, successes = EXCLUDED.successes,
            last_ts = EXCLUDED.last_ts, last_ok = EXCLUDED.last_ok, last_response_ms = EXCLUDED.last_response_ms, last_error = EXCLUDED.last_error`
        await update(tx, check.client_id, check.id, step.changes)
        if (step.incident === 'open') {
          const [open]: Raw[] = await tx`SELECT id FROM check_incidents WHERE check_id = ${check.id} AND ended_at IS NULL`
          if (!open)
            await tx`INSERT INTO check_incidents (id, client_id, check_id, started_at, ended_at, cause)
              VALUES (${newId('inc')}, ${check.client_id}, ${check.id}, ${attempt.ts}, NULL, ${attempt.error})`
        }
        if (step.incident === 'close') await closeIncident(tx, check.id, attempt.ts)
        const after = await one(tx.unsafe(`SELECT ${CHECK_COLUMNS} FROM checks WHERE id = $1`, [check.id]))
        return { check: after!, place, attempt, from: step.from, to: step.to }
      })
    },
  }
}
