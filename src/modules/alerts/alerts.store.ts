import type { Database, SQLQueryBindings } from 'bun:sqlite'
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

export type * from './alerts.rows'

/** The kinds of notice a hub claims before it sends one: the first, a repeat, a delayed recovery. */
export type ClaimedNotice = 'firing' | 'repeat' | 'resolved'

/** What a start found: `won` when this call made the alert; else the series' open alert another hub made first. */
export interface Started {
  won: boolean
  alert: AlertRow
}

/**
 * The alerts module's tables on either engine (this file: SQLite; alerts.store.pg.ts:
 * PostgreSQL): rules, overrides, alerts and their timelines, silences, settings, gateways. Every
 * tenant-owned read and write filters by client_id (the runtime's start-up reads read every
 * client on purpose). An alert's transitions (start, fire, resolve, cancel, a notice going out,
 * an acknowledgement) are conditional writes: with several hubs evaluating the same device, the
 * one whose write lands wins and tells; the others learn the stored row.
 */
export interface AlertsStore {
  rule(clientId: string, id: string): Promise<RuleRow | null>
  /** oldest first, ties by id */
  rulesOf(clientId: string): Promise<RuleRow[]>
  /** clients with rules or settings, by id, and whether their default rules were made: what the runtime loads at start */
  alertingClients(): Promise<{ clientId: string; defaultsMade: boolean }[]>
  /**
   * Inserts the rules unless the client would then have more than `max` (null, nothing written);
   * a built-in rule the client already has is skipped. The number inserted.
   */
  addRules(clientId: string, rows: RuleRow[], max: number): Promise<number | null>
  /** false for unknown ids and other tenants' rules */
  updateRule(r: RuleRow): Promise<boolean>
  deleteRule(clientId: string, id: string): Promise<boolean>
  /**
   * Once per client: the default rules it lacks and its settings marked as made. False when they
   * were made before (by this hub or another), nothing written then.
   */
  makeDefaults(clientId: string, rows: RuleRow[], groupWindowSeconds: number, now: number): Promise<boolean>
  /** by rule id, then device id */
  overridesOf(clientId: string): Promise<OverrideRow[]>
  upsertOverride(o: OverrideRow): Promise<void>
  deleteOverride(clientId: string, ruleId: string, deviceId: string): Promise<boolean>

  alert(clientId: string, id: string): Promise<AlertRow | null>
  /** every client's pending and firing alerts, and resolved ones whose recovery notice waits; oldest first */
  openAlerts(): Promise<AlertRow[]>
  /** newest first, ties by id descending */
  alertsPage(clientId: string, f: AlertFilter, limit: number, offset: number): Promise<AlertRow[]>
  alertsCount(clientId: string, f: AlertFilter): Promise<number>
  /** firing alerts per device, by device id */
  firingCounts(clientId: string): Promise<{ device_id: string; n: number }[]>
  /** every alert of a deleted device or check (with their events) */
  deleteAlertsOf(clientId: string, subjectId: string): Promise<void>
  /** the alert's timeline, oldest first; empty for another client's alert */
  eventsOf(clientId: string, alertId: string): Promise<EventRow[]>
  /** newest first, at most `limit` */
  history(clientId: string, deviceId: string | null, ruleId: string | null, since: number | null, until: number | null, limit: number): Promise<HistoryRow[]>
  addEvent(clientId: string, alertId: string, e: NewEvent): Promise<void>

  /** A new alert with its first events, unless its series already has one open (pending or firing): then that one. */
  startAlert(a: AlertRow, events: NewEvent[]): Promise<Started>
  /** A resolved alert whose recovery notice waits, firing again (a relapse); null when it is no longer such (another hub moved it). */
  reopenAlert(clientId: string, id: string, value: number | null, event: NewEvent): Promise<AlertRow | null>
  /** pending → firing with `a`'s fired_at, value and context; false when it was not pending */
  fireAlert(a: AlertRow, event: NewEvent): Promise<boolean>
  /** firing → resolved with `a`'s resolved_at, value and recovery_due_at; false when it was not firing */
  resolveAlert(a: AlertRow, event: NewEvent): Promise<boolean>
  /** a pending alert that never fired, deleted; false when it was not pending */
  cancelAlert(clientId: string, id: string): Promise<boolean>
  /**
   * Takes the right to send this notice: true for one caller only. A first notice or a repeat
   * needs the alert firing, unacknowledged and last notified when `seen` was (last_notified_at
   * becomes `now`); a delayed recovery needs it resolved with its notice due as in `seen` (the due
   * time is cleared).
   */
  claimNotice(kind: ClaimedNotice, seen: AlertRow, now: number): Promise<boolean>
  /** who acknowledged, written with its event; null when there is no such open alert of this client */
  acknowledgeAlert(clientId: string, id: string, by: string, note: string, now: number): Promise<AlertRow | null>
  /** the gateway whose outage hides the alert (null: none any more), with its event */
  setSuppressed(clientId: string, id: string, by: string | null, event: NewEvent): Promise<void>

  silence(clientId: string, id: string): Promise<SilenceRow | null>
  /** oldest first, ties by id */
  silencesOf(clientId: string): Promise<SilenceRow[]>
  /** false, nothing written, when the client has `max` already */
  addSilence(r: SilenceRow, max: number): Promise<boolean>
  updateSilence(r: SilenceRow): Promise<boolean>
  deleteSilence(clientId: string, id: string): Promise<boolean>

  settings(clientId: string): Promise<SettingsRow | null>
  /** routing and grouping window; whether the defaults were made is left as it is */
  saveSettings(clientId: string, routing: string, groupWindowSeconds: number): Promise<void>

  /** by device id */
  dependenciesOf(clientId: string): Promise<DependencyRow[]>
  setDependency(d: DependencyRow): Promise<void>
  deleteDependency(clientId: string, deviceId: string): Promise<boolean>
}

const marks = (cols: string) =>
  cols
    .split(',')
    .map(() => '?')
    .join(', ')
const sets = (cols: string[]) => cols.map((c) => `${c} = ?`).join(', ')
const FILTER = `client_id = ?1 AND (?2 IS NULL OR state = ?2) AND (?3 IS NULL OR device_id = ?3) AND (?4 IS NULL OR rule_id = ?4)
  AND (?5 IS NULL OR coalesce(resolved_at, 9e15) >= ?5) AND (?6 IS NULL OR started_at <= ?6)`

type Bind = SQLQueryBindings
const values = (row: object, cols: string): Bind[] => cols.split(',').map((c) => (row as Record<string, Bind>)[c.trim()]!)

/** The store on SQLite: its statements run when called (bun:sqlite is synchronous), the answers come as promises. */
export function createAlertsStore(sqlite: Database): AlertsStore {
  const q = <R>(text: string) => sqlite.query<R, Bind[]>(text)
  const s = {
    ruleInsert: q(`INSERT INTO alert_rules (${RULE_COLS}) VALUES (${marks(RULE_COLS)}) ON CONFLICT (client_id, builtin) DO NOTHING`),
    ruleUpdate: q(`UPDATE alert_rules SET ${sets(RULE_COLS.split(', ').slice(2))} WHERE client_id = ? AND id = ?`),
    ruleDelete: q('DELETE FROM alert_rules WHERE client_id = ? AND id = ?'),
    ruleById: q<RuleRow>(`SELECT ${RULE_COLS} FROM alert_rules WHERE client_id = ? AND id = ?`),
    rulesOf: q<RuleRow>(`SELECT ${RULE_COLS} FROM alert_rules WHERE client_id = ? ORDER BY created_at, id`),
    ruleCount: q<{ n: number }>('SELECT count(*) AS n FROM alert_rules WHERE client_id = ?'),
    clients: q<{ client_id: string; made: number }>(
      `SELECT client_id, max(made) AS made FROM (SELECT client_id, 0 AS made FROM alert_rules
       UNION ALL SELECT client_id, defaults_created_at IS NOT NULL FROM alert_settings) GROUP BY client_id ORDER BY client_id`,
    ),
    overridesOf: q<OverrideRow>(`SELECT ${OVERRIDE_COLS} FROM alert_rule_overrides WHERE client_id = ? ORDER BY rule_id, device_id`),
    overrideUpsert: q(`INSERT OR REPLACE INTO alert_rule_overrides (${OVERRIDE_COLS}) VALUES (${marks(OVERRIDE_COLS)})`),
    overrideDelete: q('DELETE FROM alert_rule_overrides WHERE client_id = ? AND rule_id = ? AND device_id = ?'),
    alertInsert: q(`INSERT INTO alerts (${ALERT_COLS}) VALUES (${marks(ALERT_COLS)})`),
    alertsOfSubjectDelete: q('DELETE FROM alerts WHERE client_id = ? AND device_id = ?'),
    alertById: q<AlertRow>(`SELECT ${ALERT_COLS} FROM alerts WHERE client_id = ? AND id = ?`),
    openOfSeries: q<AlertRow>(
      `SELECT ${ALERT_COLS} FROM alerts WHERE client_id = ? AND rule_id = ? AND device_id = ? AND series = ? AND state != 'resolved' LIMIT 1`,
    ),
    alertsOpen: q<AlertRow>(`SELECT ${ALERT_COLS} FROM alerts WHERE state != 'resolved' OR recovery_due_at IS NOT NULL ORDER BY started_at, id`),
    alertsPage: q<AlertRow>(`SELECT ${ALERT_COLS} FROM alerts WHERE ${FILTER} ORDER BY started_at DESC, id DESC LIMIT ?7 OFFSET ?8`),
    alertsCount: q<{ n: number }>(`SELECT count(*) AS n FROM alerts WHERE ${FILTER}`),
    firingCounts: q<{ device_id: string; n: number }>(
      "SELECT device_id, count(*) AS n FROM alerts WHERE client_id = ? AND state = 'firing' GROUP BY device_id ORDER BY device_id",
    ),
    reopen: q<AlertRow>(
      `UPDATE alerts SET state = 'firing', resolved_at = NULL, recovery_due_at = NULL, value = ?
       WHERE client_id = ? AND id = ? AND state = 'resolved' AND recovery_due_at IS NOT NULL RETURNING ${ALERT_COLS}`,
    ),
    fire: q<{ id: string }>(
      "UPDATE alerts SET state = 'firing', fired_at = ?, value = ?, context = ? WHERE client_id = ? AND id = ? AND state = 'pending' RETURNING id",
    ),
    resolve: q<{ id: string }>(
      "UPDATE alerts SET state = 'resolved', resolved_at = ?, value = ?, recovery_due_at = ? WHERE client_id = ? AND id = ? AND state = 'firing' RETURNING id",
    ),
    cancel: q<{ id: string }>("DELETE FROM alerts WHERE client_id = ? AND id = ? AND state = 'pending' RETURNING id"),
    claimSent: q<{ id: string }>(
      `UPDATE alerts SET last_notified_at = ? WHERE client_id = ? AND id = ? AND state = 'firing' AND ack_at IS NULL AND last_notified_at IS ? RETURNING id`,
    ),
    claimRecovery: q<{ id: string }>(
      "UPDATE alerts SET recovery_due_at = NULL WHERE client_id = ? AND id = ? AND state = 'resolved' AND recovery_due_at IS ? RETURNING id",
    ),
    ack: q<AlertRow>(`UPDATE alerts SET ack_by = ?, ack_at = ?, ack_note = ? WHERE client_id = ? AND id = ? AND state != 'resolved' RETURNING ${ALERT_COLS}`),
    suppress: q<{ id: string }>('UPDATE alerts SET suppressed_by = ? WHERE client_id = ? AND id = ? RETURNING id'),
    eventInsert: q('INSERT INTO alert_events (alert_id, client_id, at, type, value, by, note) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    eventsOf: q<EventRow>('SELECT alert_id, at, type, value, by, note FROM alert_events WHERE client_id = ? AND alert_id = ? ORDER BY at, id'),
    history: q<HistoryRow>(
      `SELECT e.alert_id, e.at, e.type, e.value, e.by, e.note, a.rule_id, a.device_id, a.series FROM alert_events e JOIN alerts a ON a.id = e.alert_id
       WHERE e.client_id = ?1 AND (?2 IS NULL OR a.device_id = ?2) AND (?3 IS NULL OR a.rule_id = ?3) AND (?4 IS NULL OR e.at >= ?4) AND (?5 IS NULL OR e.at <= ?5)
       ORDER BY e.at DESC, e.id DESC LIMIT ?6`,
    ),
    silenceInsert: q(`INSERT INTO alert_silences (${SILENCE_COLS}) VALUES (${marks(SILENCE_COLS)})`),
    silenceUpdate: q(`UPDATE alert_silences SET ${sets(SILENCE_COLS.split(', ').slice(2, 11))} WHERE client_id = ? AND id = ?`),
    silenceDelete: q('DELETE FROM alert_silences WHERE client_id = ? AND id = ?'),
    silenceById: q<SilenceRow>(`SELECT ${SILENCE_COLS} FROM alert_silences WHERE client_id = ? AND id = ?`),
    silencesOf: q<SilenceRow>(`SELECT ${SILENCE_COLS} FROM alert_silences WHERE client_id = ? ORDER BY created_at, id`),
    silenceCount: q<{ n: number }>('SELECT count(*) AS n FROM alert_silences WHERE client_id = ?'),
    settingsOf: q<SettingsRow>(`SELECT ${SETTINGS_COLS} FROM alert_settings WHERE client_id = ?`),
    settingsSave: q(
      `INSERT INTO alert_settings (client_id, routing, group_window_seconds) VALUES (?1, ?2, ?3)
       ON CONFLICT (client_id) DO UPDATE SET routing = ?2, group_window_seconds = ?3`,
    ),
    defaultsMade: q<{ id: string }>(
      `INSERT INTO alert_settings (client_id, group_window_seconds, defaults_created_at) VALUES (?1, ?2, ?3)
       ON CONFLICT (client_id) DO UPDATE SET defaults_created_at = ?3 WHERE defaults_created_at IS NULL RETURNING client_id AS id`,
    ),
    depsOf: q<DependencyRow>('SELECT device_id, client_id, parent_device_id FROM alert_dependencies WHERE client_id = ? ORDER BY device_id'),
    depUpsert: q('INSERT OR REPLACE INTO alert_dependencies (device_id, client_id, parent_device_id) VALUES (?, ?, ?)'),
    depDelete: q('DELETE FROM alert_dependencies WHERE client_id = ? AND device_id = ?'),
  }
  const filterArgs = (clientId: string, f: AlertFilter): Bind[] => [clientId, f.state, f.deviceId, f.ruleId, f.since, f.until]
  const event = (clientId: string, alertId: string, e: NewEvent) => void s.eventInsert.run(alertId, clientId, e.at, e.type, e.value, e.by, e.note)
  /** read and write with no other writer between them */
  const atomically = <T>(fn: () => T): T => sqlite.transaction(fn).immediate()

  return {
    rule: async (clientId, id) => s.ruleById.get(clientId, id),
    rulesOf: async (clientId) => s.rulesOf.all(clientId),
    alertingClients: async () => s.clients.all().map((r) => ({ clientId: r.client_id, defaultsMade: r.made === 1 })),
    addRules: async (clientId, rows, max) =>
      atomically(() => {
        if (s.ruleCount.get(clientId)!.n + rows.length > max) return null
        let n = 0
        for (const r of rows) n += s.ruleInsert.run(...values(r, RULE_COLS)).changes
        return n
      }),
    updateRule: async (r) => s.ruleUpdate.run(...values(r, RULE_COLS).slice(2), r.client_id, r.id).changes > 0,
    deleteRule: async (clientId, id) => s.ruleDelete.run(clientId, id).changes > 0,
    makeDefaults: async (clientId, rows, groupWindowSeconds, now) =>
      atomically(() => {
        if (!s.defaultsMade.get(clientId, groupWindowSeconds, now)) return false
        for (const r of rows) s.ruleInsert.run(...values(r, RULE_COLS))
        return true
      }),
    overridesOf: async (clientId) => s.overridesOf.all(clientId),
    upsertOverride: async (o) => void s.overrideUpsert.run(...values(o, OVERRIDE_COLS)),
    deleteOverride: async (clientId, ruleId, deviceId) => s.overrideDelete.run(clientId, ruleId, deviceId).changes > 0,

    alert: async (clientId, id) => s.alertById.get(clientId, id),
    openAlerts: async () => s.alertsOpen.all(),
    alertsPage: async (clientId, f, limit, offset) => s.alertsPage.all(...filterArgs(clientId, f), limit, offset),
    alertsCount: async (clientId, f) => s.alertsCount.get(...filterArgs(clientId, f))!.n,
    firingCounts: async (clientId) => s.firingCounts.all(clientId),
    deleteAlertsOf: async (clientId, subjectId) => void s.alertsOfSubjectDelete.run(clientId, subjectId),
    eventsOf: async (clientId, alertId) => s.eventsOf.all(clientId, alertId),
    history: async (clientId, deviceId, ruleId, since, until, limit) => s.history.all(clientId, deviceId, ruleId, since, until, limit),
    addEvent: async (clientId, alertId, e) => event(clientId, alertId, e),

    startAlert: async (a, events) =>
      atomically(() => {
        const open = s.openOfSeries.get(a.client_id, a.rule_id, a.device_id, a.series)
        if (open) return { won: false, alert: open }
        s.alertInsert.run(...values(a, ALERT_COLS))
        for (const e of events) event(a.client_id, a.id, e)
        return { won: true, alert: a }
      }),
    reopenAlert: async (clientId, id, value, e) =>
      atomically(() => {
        const was = s.alertById.get(clientId, id)
        // a relapse and a new alert of the series never both open
        if (!was || s.openOfSeries.get(clientId, was.rule_id, was.device_id, was.series)) return null
        const row = s.reopen.get(value, clientId, id)
        if (row) event(clientId, id, e)
        return row
      }),
    fireAlert: async (a, e) =>
      atomically(() => {
        const won = s.fire.get(a.fired_at, a.value, a.context, a.client_id, a.id) !== null
        if (won) event(a.client_id, a.id, e)
        return won
      }),
    resolveAlert: async (a, e) =>
      atomically(() => {
        const won = s.resolve.get(a.resolved_at, a.value, a.recovery_due_at, a.client_id, a.id) !== null
        if (won) event(a.client_id, a.id, e)
        return won
      }),
    cancelAlert: async (clientId, id) => s.cancel.get(clientId, id) !== null,
    claimNotice: async (kind, seen, now) =>
      kind === 'resolved'
        ? s.claimRecovery.get(seen.client_id, seen.id, seen.recovery_due_at) !== null
        : s.claimSent.get(now, seen.client_id, seen.id, seen.last_notified_at) !== null,
    acknowledgeAlert: async (clientId, id, by, note, now) =>
      atomically(() => {
        const row = s.ack.get(by, now, note, clientId, id)
        if (row) event(clientId, id, { at: now, type: 'acknowledged', value: null, by, note: note || null })
        return row
      }),
    setSuppressed: async (clientId, id, by, e) =>
      atomically(() => {
        if (s.suppress.get(by, clientId, id)) event(clientId, id, e)
      }),

    silence: async (clientId, id) => s.silenceById.get(clientId, id),
    silencesOf: async (clientId) => s.silencesOf.all(clientId),
    addSilence: async (r, max) =>
      atomically(() => {
        if (s.silenceCount.get(r.client_id)!.n >= max) return false
        s.silenceInsert.run(...values(r, SILENCE_COLS))
        return true
      }),
    updateSilence: async (r) => s.silenceUpdate.run(...values(r, SILENCE_COLS).slice(2, 11), r.client_id, r.id).changes > 0,
    deleteSilence: async (clientId, id) => s.silenceDelete.run(clientId, id).changes > 0,

    settings: async (clientId) => s.settingsOf.get(clientId),
    saveSettings: async (clientId, routing, groupWindowSeconds) => void s.settingsSave.run(clientId, routing, groupWindowSeconds),

    dependenciesOf: async (clientId) => s.depsOf.all(clientId),
    setDependency: async (d) => void s.depUpsert.run(d.device_id, d.client_id, d.parent_device_id),
    deleteDependency: async (clientId, deviceId) => s.depDelete.run(clientId, deviceId).changes > 0,
  }
}
