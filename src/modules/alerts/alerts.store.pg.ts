import type { SQL } from 'bun'
import { type Raw, numOrNull } from '../../db/pg/rows'
import {
  ALERT_COLS,
  type AlertFilter,
  type AlertRow,
  type DependencyRow,
  type EventRow,
  type HistoryRow,
  type NewEvent,
  OVERRIDE_COLS,
  type OverrideRow,
  RULE_COLS,
  type RuleRow,
  SETTINGS_COLS,
  SILENCE_COLS,
  type SettingsRow,
  type SilenceRow,
} from './alerts.rows'
import type { AlertsStore, Started } from './alerts.store'

/** the int8 columns of each table, handed back as numbers (Bun.SQL gives strings) */
const INTS = new Set([
  'enabled',
  'for_seconds',
  'offline_intervals',
  'forecast_hours',
  'repeat_seconds',
  'notify_recovery',
  'recovery_delay_seconds',
  'created_at',
  'updated_at',
  'started_at',
  'fired_at',
  'resolved_at',
  'ack_at',
  'last_notified_at',
  'recovery_due_at',
  'at',
  'starts_at',
  'ends_at',
  'duration_seconds',
  'group_window_seconds',
  'defaults_created_at',
  'n',
])
const DOUBLES = new Set(['threshold', 'recovery_threshold', 'value'])

function typed<T>(r: Raw): T {
  const out: Raw = {}
  for (const k in r) {
    const v = r[k]
    out[k] = INTS.has(k) || DOUBLES.has(k) ? numOrNull(v) : v === undefined ? null : v
  }
  return out as T
}
const rows = <T>(list: Raw[]): T[] => list.map((r) => typed<T>(r))

const list = (cols: string) => cols.split(', ')
const params = (cols: string, from = 1) =>
  list(cols)
    .map((_, i) => `$${i + from}`)
    .join(', ')
const values = (row: object, cols: string): unknown[] => list(cols).map((c) => (row as Raw)[c] ?? null)
const sets = (cols: string[], from: number) => cols.map((c, i) => `${c} = $${i + from}`).join(', ')

const RULE_SET = list(RULE_COLS).slice(2)
const SILENCE_SET = list(SILENCE_COLS).slice(2, 11)
const FILTER = `client_id = $1 AND ($2::text IS NULL OR state = $2) AND ($3::text IS NULL OR device_id = $3) AND ($4::text IS NULL OR rule_id = $4)
  AND ($5::bigint IS NULL OR coalesce(resolved_at, 9000000000000000) >= $5) AND ($6::bigint IS NULL OR started_at <= $6)`

/**
 * The alerts tables on PostgreSQL: the same answers as the SQLite store (alerts.store.contract.test.ts).
 * Text is ordered by its bytes (COLLATE "C"), as SQLite orders it. Where two hubs may race (a
 * series' alert started twice, a client's rules counted against its limit), the transaction
 * first takes an advisory lock on what it is about; the other transitions are conditional
 * updates whose RETURNING says who won.
 */
export function createAlertsStorePg(sql: SQL): AlertsStore {
  const lock = (tx: SQL, key: string) => tx`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`
  const event = (tx: SQL, clientId: string, alertId: string, e: NewEvent) =>
    tx`INSERT INTO alert_events (alert_id, client_id, at, type, value, by, note) VALUES (${alertId}, ${clientId}, ${e.at}, ${e.type}, ${e.value}, ${e.by}, ${e.note})`
  const insertRule = (tx: SQL, r: RuleRow) =>
    tx.unsafe(
      `INSERT INTO alert_rules (${RULE_COLS}) VALUES (${params(RULE_COLS)}) ON CONFLICT (client_id, builtin) DO NOTHING RETURNING id`,
      values(r, RULE_COLS),
    )
  const filterArgs = (clientId: string, f: AlertFilter) => [clientId, f.state, f.deviceId, f.ruleId, f.since, f.until]
  /** one conditional write and, when it landed, its event: in one transaction */
  const transition = (clientId: string, id: string, e: NewEvent, write: (tx: SQL) => Promise<Raw[]>) =>
    sql.begin(async (tx) => {
      const [won] = await write(tx)
      if (won) await event(tx, clientId, id, e)
      return won ?? null
    })

  return {
    async rule(clientId, id) {
      const [r]: Raw[] = await sql.unsafe(`SELECT ${RULE_COLS} FROM alert_rules WHERE client_id = $1 AND id = $2`, [clientId, id])
      return r ? typed<RuleRow>(r) : null
    },
    async rulesOf(clientId) {
      return rows<RuleRow>(await sql.unsafe(`SELECT ${RULE_COLS} FROM alert_rules WHERE client_id = $1 ORDER BY created_at, id COLLATE "C"`, [clientId]))
    },
    async alertingClients() {
      const found: Raw[] = await sql`SELECT client_id, bool_or(made) AS made FROM (SELECT client_id, false AS made FROM alert_rules
        UNION ALL SELECT client_id, defaults_created_at IS NOT NULL FROM alert_settings) c GROUP BY client_id ORDER BY client_id COLLATE "C"`
      return found.map((r) => ({ clientId: r.client_id as string, defaultsMade: r.made === true }))
    },
    addRules(clientId, add, max) {
      return sql.begin(async (tx) => {
        // a client's rule writes queue here, so two hubs adding at once cannot pass its limit together
        await lock(tx, `vigil.alerts.rules:${clientId}`)
        const [c]: { n: number }[] = await tx`SELECT count(*)::int AS n FROM alert_rules WHERE client_id = ${clientId}`
        if (c!.n + add.length > max) return null
        let n = 0
        for (const r of add) n += (await insertRule(tx, r)).length
        return n
      })
    },
    async updateRule(r) {
      const done: Raw[] = await sql.unsafe(
        `UPDATE alert_rules SET ${sets(RULE_SET, 1)} WHERE client_id = $${RULE_SET.length + 1} AND id = $${RULE_SET.length + 2} RETURNING id`,
        [...values(r, RULE_COLS).slice(2), r.client_id, r.id],
      )
      return done.length > 0
    },
    async deleteRule(clientId, id) {
      return (await sql`DELETE FROM alert_rules WHERE client_id = ${clientId} AND id = ${id} RETURNING id`).length > 0
    },
    makeDefaults(clientId, add, groupWindowSeconds, now) {
      return sql.begin(async (tx) => {
        // the settings row's conditional write decides which hub makes them: the other's returns nothing
        const made: Raw[] =
          await tx`INSERT INTO alert_settings (client_id, group_window_seconds, defaults_created_at) VALUES (${clientId}, ${groupWindowSeconds}, ${now})
          ON CONFLICT (client_id) DO UPDATE SET defaults_created_at = EXCLUDED.defaults_created_at WHERE alert_settings.defaults_created_at IS NULL
          RETURNING client_id`
        if (!made.length) return false
        await lock(tx, `vigil.alerts.rules:${clientId}`)
        for (const r of add) await insertRule(tx, r)
        return true
      })
    },
    async overridesOf(clientId) {
      return rows<OverrideRow>(
        await sql.unsafe(`SELECT ${OVERRIDE_COLS} FROM alert_rule_overrides WHERE client_id = $1 ORDER BY rule_id COLLATE "C", device_id COLLATE "C"`, [
          clientId,
        ]),
      )
    },
    async upsertOverride(o) {
      const upd = list(OVERRIDE_COLS).slice(2)
      await sql.unsafe(
        `INSERT INTO alert_rule_overrides (${OVERRIDE_COLS}) VALUES (${params(OVERRIDE_COLS)})
         ON CONFLICT (rule_id, device_id) DO UPDATE SET ${upd.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}`,
        values(o, OVERRIDE_COLS),
      )
    },
    async deleteOverride(clientId, ruleId, deviceId) {
      const done =
        await sql`DELETE FROM alert_rule_overrides WHERE client_id = ${clientId} AND rule_id = ${ruleId} AND device_id = ${deviceId} RETURNING rule_id`
      return done.length > 0
    },

    async alert(clientId, id) {
      const [r]: Raw[] = await sql.unsafe(`SELECT ${ALERT_COLS} FROM alerts WHERE client_id = $1 AND id = $2`, [clientId, id])
      return r ? typed<AlertRow>(r) : null
    },
    async openAlerts() {
      return rows<AlertRow>(
        await sql.unsafe(`SELECT ${ALERT_COLS} FROM alerts WHERE state <> 'resolved' OR recovery_due_at IS NOT NULL ORDER BY started_at, id COLLATE "C"`),
      )
    },
    async alertsPage(clientId, f, limit, offset) {
      return rows<AlertRow>(
        await sql.unsafe(`SELECT ${ALERT_COLS} FROM alerts WHERE ${FILTER} ORDER BY started_at DESC, id COLLATE "C" DESC LIMIT $7 OFFSET $8`, [
          ...filterArgs(clientId, f),
          limit,
          offset,
        ]),
      )
    },
    async alertsCount(clientId, f) {
      const [r]: { n: number }[] = await sql.unsafe(`SELECT count(*)::int AS n FROM alerts WHERE ${FILTER}`, filterArgs(clientId, f))
      return r!.n
    },
    async firingCounts(clientId) {
      return await sql`SELECT device_id, count(*)::int AS n FROM alerts WHERE client_id = ${clientId} AND state = 'firing'
        GROUP BY device_id ORDER BY device_id COLLATE "C"`
    },
    async deleteAlertsOf(clientId, subjectId) {
      await sql`DELETE FROM alerts WHERE client_id = ${clientId} AND device_id = ${subjectId}`
    },
    async eventsOf(clientId, alertId) {
      return rows<EventRow>(
        await sql`SELECT alert_id, at, type, value, by, note FROM alert_events WHERE client_id = ${clientId} AND alert_id = ${alertId} ORDER BY at, id`,
      )
    },
    async history(clientId, deviceId, ruleId, since, until, limit) {
      return rows<HistoryRow>(
        await sql.unsafe(
          `SELECT e.alert_id, e.at, e.type, e.value, e.by, e.note, a.rule_id, a.device_id, a.series FROM alert_events e JOIN alerts a ON a.id = e.alert_id
           WHERE e.client_id = $1 AND ($2::text IS NULL OR a.device_id = $2) AND ($3::text IS NULL OR a.rule_id = $3)
             AND ($4::bigint IS NULL OR e.at >= $4) AND ($5::bigint IS NULL OR e.at <= $5)
           ORDER BY e.at DESC, e.id DESC LIMIT $6`,
          [clientId, deviceId, ruleId, since, until, limit],
        ),
      )
    },
    async addEvent(clientId, alertId, e) {
      await event(sql, clientId, alertId, e)
    },

    startAlert(a, events) {
      return sql.begin(async (tx): Promise<Started> => {
        // one series, one open alert: hubs starting it at once queue here, and the second finds the first's
        await lock(tx, `vigil.alerts.series:${a.client_id}:${a.rule_id}:${a.device_id}:${a.series}`)
        const [open]: Raw[] = await tx.unsafe(
          `SELECT ${ALERT_COLS} FROM alerts WHERE client_id = $1 AND rule_id = $2 AND device_id = $3 AND series = $4 AND state <> 'resolved' LIMIT 1`,
          [a.client_id, a.rule_id, a.device_id, a.series],
        )
        if (open) return { won: false, alert: typed<AlertRow>(open) }
        await tx.unsafe(`INSERT INTO alerts (${ALERT_COLS}) VALUES (${params(ALERT_COLS)})`, values(a, ALERT_COLS))
        for (const e of events) await event(tx, a.client_id, a.id, e)
        return { won: true, alert: a }
      })
    },
    async reopenAlert(clientId, id, value, e) {
      const row = await sql.begin(async (tx) => {
        const [found]: Raw[] = await tx`SELECT rule_id, device_id, series FROM alerts WHERE client_id = ${clientId} AND id = ${id}`
        if (!found) return null
        // the same lock as a start: a relapse and a new alert of the series never both open
        await lock(tx, `vigil.alerts.series:${clientId}:${found.rule_id}:${found.device_id}:${found.series}`)
        const [open]: Raw[] = await tx`SELECT id FROM alerts WHERE client_id = ${clientId} AND rule_id = ${found.rule_id as string}
          AND device_id = ${found.device_id as string} AND series = ${found.series as string} AND state <> 'resolved' LIMIT 1`
        if (open) return null
        const [r]: Raw[] = await tx.unsafe(
          `UPDATE alerts SET state = 'firing', resolved_at = NULL, recovery_due_at = NULL, value = $1
           WHERE client_id = $2 AND id = $3 AND state = 'resolved' AND recovery_due_at IS NOT NULL RETURNING ${ALERT_COLS}`,
          [value, clientId, id],
        )
        if (r) await event(tx, clientId, id, e)
        return r ?? null
      })
      return row ? typed<AlertRow>(row) : null
    },
    async fireAlert(a, e) {
      const won = await transition(
        a.client_id,
        a.id,
        e,
        (tx) => tx`UPDATE alerts SET state = 'firing', fired_at = ${a.fired_at}, value = ${a.value}, context = ${a.context}
          WHERE client_id = ${a.client_id} AND id = ${a.id} AND state = 'pending' RETURNING id`,
      )
      return won !== null
    },
    async resolveAlert(a, e) {
      const won = await transition(
        a.client_id,
        a.id,
        e,
        (tx) => tx`UPDATE alerts SET state = 'resolved', resolved_at = ${a.resolved_at}, value = ${a.value}, recovery_due_at = ${a.recovery_due_at}
          WHERE client_id = ${a.client_id} AND id = ${a.id} AND state = 'firing' RETURNING id`,
      )
      return won !== null
    },
    async cancelAlert(clientId, id) {
      return (await sql`DELETE FROM alerts WHERE client_id = ${clientId} AND id = ${id} AND state = 'pending' RETURNING id`).length > 0
    },
    async claimNotice(kind, seen, now) {
      const done: Raw[] =
        kind === 'resolved'
          ? await sql`UPDATE alerts SET recovery_due_at = NULL WHERE client_id = ${seen.client_id} AND id = ${seen.id} AND state = 'resolved'
              AND recovery_due_at IS NOT DISTINCT FROM ${seen.recovery_due_at}::bigint RETURNING id`
          : await sql`UPDATE alerts SET last_notified_at = ${now} WHERE client_id = ${seen.client_id} AND id = ${seen.id} AND state = 'firing'
              AND ack_at IS NULL AND last_notified_at IS NOT DISTINCT FROM ${seen.last_notified_at}::bigint RETURNING id`
      return done.length > 0
    },
    async acknowledgeAlert(clientId, id, by, note, now) {
      const row = await transition(clientId, id, { at: now, type: 'acknowledged', value: null, by, note: note || null }, (tx) =>
        tx.unsafe(
          `UPDATE alerts SET ack_by = $1, ack_at = $2, ack_note = $3 WHERE client_id = $4 AND id = $5 AND state <> 'resolved' RETURNING ${ALERT_COLS}`,
          [by, now, note, clientId, id],
        ),
      )
      return row ? typed<AlertRow>(row) : null
    },
    async setSuppressed(clientId, id, by, e) {
      await transition(clientId, id, e, (tx) => tx`UPDATE alerts SET suppressed_by = ${by} WHERE client_id = ${clientId} AND id = ${id} RETURNING id`)
    },

    async silence(clientId, id) {
      const [r]: Raw[] = await sql.unsafe(`SELECT ${SILENCE_COLS} FROM alert_silences WHERE client_id = $1 AND id = $2`, [clientId, id])
      return r ? typed<SilenceRow>(r) : null
    },
    async silencesOf(clientId) {
      return rows<SilenceRow>(
        await sql.unsafe(`SELECT ${SILENCE_COLS} FROM alert_silences WHERE client_id = $1 ORDER BY created_at, id COLLATE "C"`, [clientId]),
      )
    },
    addSilence(r, max) {
      return sql.begin(async (tx) => {
        await lock(tx, `vigil.alerts.silences:${r.client_id}`)
        const [c]: { n: number }[] = await tx`SELECT count(*)::int AS n FROM alert_silences WHERE client_id = ${r.client_id}`
        if (c!.n >= max) return false
        await tx.unsafe(`INSERT INTO alert_silences (${SILENCE_COLS}) VALUES (${params(SILENCE_COLS)})`, values(r, SILENCE_COLS))
        return true
      })
    },
    async updateSilence(r) {
      const done: Raw[] = await sql.unsafe(
        `UPDATE alert_silences SET ${sets(SILENCE_SET, 1)} WHERE client_id = $${SILENCE_SET.length + 1} AND id = $${SILENCE_SET.length + 2} RETURNING id`,
        [...values(r, SILENCE_COLS).slice(2, 11), r.client_id, r.id],
      )
      return done.length > 0
    },
    async deleteSilence(clientId, id) {
      return (await sql`DELETE FROM alert_silences WHERE client_id = ${clientId} AND id = ${id} RETURNING id`).length > 0
    },

    async settings(clientId) {
      const [r]: Raw[] = await sql.unsafe(`SELECT ${SETTINGS_COLS} FROM alert_settings WHERE client_id = $1`, [clientId])
      return r ? typed<SettingsRow>(r) : null
    },
    async saveSettings(clientId, routing, groupWindowSeconds) {
      await sql`INSERT INTO alert_settings (client_id, routing, group_window_seconds) VALUES (${clientId}, ${routing}, ${groupWindowSeconds})
        ON CONFLICT (client_id) DO UPDATE SET routing = EXCLUDED.routing, group_window_seconds = EXCLUDED.group_window_seconds`
    },

    async dependenciesOf(clientId) {
      return rows<DependencyRow>(
        await sql`SELECT device_id, client_id, parent_device_id FROM alert_dependencies WHERE client_id = ${clientId} ORDER BY device_id COLLATE "C"`,
      )
    },
    async setDependency(d) {
      await sql`INSERT INTO alert_dependencies (device_id, client_id, parent_device_id) VALUES (${d.device_id}, ${d.client_id}, ${d.parent_device_id})
        ON CONFLICT (device_id) DO UPDATE SET client_id = EXCLUDED.client_id, parent_device_id = EXCLUDED.parent_device_id`
    },
    async deleteDependency(clientId, deviceId) {
      return (await sql`DELETE FROM alert_dependencies WHERE client_id = ${clientId} AND device_id = ${deviceId} RETURNING device_id`).length > 0
    },
  }
}
