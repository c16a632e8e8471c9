import type { Database } from 'bun:sqlite'

export interface RuleRow {
  id: string
  client_id: string
  name: string
  enabled: number
  kind: string
  metric: string | null
  operator: string | null
  threshold: number | null
  recovery_threshold: number | null
  for_seconds: number
  offline_intervals: number | null
  forecast_hours: number | null
  severity: string
  scope_type: string
  scope_value: string | null
  channel_ids: string
  repeat_seconds: number | null
  notify_recovery: number
  recovery_delay_seconds: number
  builtin: string | null
  created_at: number
  updated_at: number
}

export interface OverrideRow {
  rule_id: string
  device_id: string
  client_id: string
  enabled: number | null
  threshold: number | null
  recovery_threshold: number | null
  for_seconds: number | null
  severity: string | null
  updated_at: number
}

export interface AlertRow {
  id: string
  client_id: string
  rule_id: string
  device_id: string
  series: string
  state: string
  severity: string
  value: number | null
  threshold: number | null
  started_at: number
  fired_at: number | null
  resolved_at: number | null
  ack_by: string | null
  ack_at: number | null
  ack_note: string | null
  suppressed_by: string | null
  context: string | null
  last_notified_at: number | null
  recovery_due_at: number | null
}

export interface EventRow {
  alert_id: string
  at: number
  type: string
  value: number | null
  by: string | null
  note: string | null
}

export interface SilenceRow {
  id: string
  client_id: string
  comment: string
  scope_type: string
  scope_value: string | null
  rule_id: string | null
  starts_at: number | null
  ends_at: number | null
  cron: string | null
  duration_seconds: number | null
  timezone: string | null
  created_by: string | null
  created_at: number
}

export interface SettingsRow {
  client_id: string
  routing: string
  group_window_seconds: number
  defaults_created_at: number | null
}

export interface DependencyRow {
  device_id: string
  client_id: string
  parent_device_id: string
}

export interface AlertFilter {
  state: string | null
  deviceId: string | null
  ruleId: string | null
  since: number | null
  until: number | null
}

const RULE_COLS =
  'id, client_id, name, enabled, kind, metric, operator, threshold, recovery_threshold, for_seconds, offline_intervals, forecast_hours, severity, scope_type, scope_value, channel_ids, repeat_seconds, notify_recovery, recovery_delay_seconds, builtin, created_at, updated_at'
const ALERT_COLS =
  'id, client_id, rule_id, device_id, series, state, severity, value, threshold, started_at, fired_at, resolved_at, ack_by, ack_at, ack_note, suppressed_by, context, last_notified_at, recovery_due_at'
const SILENCE_COLS = 'id, client_id, comment, scope_type, scope_value, rule_id, starts_at, ends_at, cron, duration_seconds, timezone, created_by, created_at'
const OVERRIDE_COLS = 'rule_id, device_id, client_id, enabled, threshold, recovery_threshold, for_seconds, severity, updated_at'
const placeholders = (cols: string) =>
  cols
    .split(',')
    .map(() => '?')
    .join(', ')
const FILTER = `client_id = ?1 AND (?2 IS NULL OR state = ?2) AND (?3 IS NULL OR device_id = ?3) AND (?4 IS NULL OR rule_id = ?4)
  AND (?5 IS NULL OR coalesce(resolved_at, 9e15) >= ?5) AND (?6 IS NULL OR started_at <= ?6)`

type Values<T> = T[keyof T]
const values = <T extends object>(row: T, cols: string) => cols.split(',').map((c) => (row as Record<string, unknown>)[c.trim()] as Values<T>)

/** The alerts module's SQL: rules, overrides, alerts and their timelines, silences, settings, dependencies. */
export function createAlertsStore(sqlite: Database) {
  const q = <R, P extends unknown[] = unknown[]>(sql: string) => sqlite.query<R, P & import('bun:sqlite').SQLQueryBindings[]>(sql)
  const s = {
    ruleInsert: q(`INSERT INTO alert_rules (${RULE_COLS}) VALUES (${placeholders(RULE_COLS)})`),
    ruleUpdate: q(
      `UPDATE alert_rules SET ${RULE_COLS.split(', ')
        .slice(2)
        .map((c) => `${c} = ?`)
        .join(', ')} WHERE client_id = ? AND id = ?`,
    ),
    ruleDelete: q('DELETE FROM alert_rules WHERE client_id = ? AND id = ?'),
    ruleById: q<RuleRow>(`SELECT ${RULE_COLS} FROM alert_rules WHERE client_id = ? AND id = ?`),
    rulesOf: q<RuleRow>(`SELECT ${RULE_COLS} FROM alert_rules WHERE client_id = ? ORDER BY created_at, id`),
    ruleCount: q<{ n: number }>('SELECT count(*) AS n FROM alert_rules WHERE client_id = ?'),
    rulesAll: q<RuleRow>(`SELECT ${RULE_COLS} FROM alert_rules ORDER BY client_id, created_at, id`),
    overridesOf: q<OverrideRow>(`SELECT ${OVERRIDE_COLS} FROM alert_rule_overrides WHERE client_id = ? ORDER BY rule_id, device_id`),
    overridesAll: q<OverrideRow>(`SELECT ${OVERRIDE_COLS} FROM alert_rule_overrides`),
    overrideUpsert: q(`INSERT OR REPLACE INTO alert_rule_overrides (${OVERRIDE_COLS}) VALUES (${placeholders(OVERRIDE_COLS)})`),
    overrideDelete: q('DELETE FROM alert_rule_overrides WHERE client_id = ? AND rule_id = ? AND device_id = ?'),
    alertInsert: q(`INSERT INTO alerts (${ALERT_COLS}) VALUES (${placeholders(ALERT_COLS)})`),
    alertsOfSubjectDelete: q('DELETE FROM alerts WHERE client_id = ? AND device_id = ?'),
    alertUpdate: q(
      `UPDATE alerts SET ${ALERT_COLS.split(', ')
        .slice(4)
        .map((c) => `${c} = ?`)
        .join(', ')} WHERE id = ?`,
    ),
    alertDelete: q('DELETE FROM alerts WHERE id = ?'),
    alertById: q<AlertRow>(`SELECT ${ALERT_COLS} FROM alerts WHERE client_id = ? AND id = ?`),
    alertsOpen: q<AlertRow>(`SELECT ${ALERT_COLS} FROM alerts WHERE state != 'resolved' OR recovery_due_at IS NOT NULL`),
    alertsPage: q<AlertRow>(`SELECT ${ALERT_COLS} FROM alerts WHERE ${FILTER} ORDER BY started_at DESC, id DESC LIMIT ?7 OFFSET ?8`),
    alertsCount: q<{ n: number }>(`SELECT count(*) AS n FROM alerts WHERE ${FILTER}`),
    firingCounts: q<{ device_id: string; n: number }>(
      "SELECT device_id, count(*) AS n FROM alerts WHERE client_id = ? AND state = 'firing' GROUP BY device_id",
    ),
    eventInsert: q('INSERT INTO alert_events (alert_id, client_id, at, type, value, by, note) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    eventsOf: q<EventRow>('SELECT alert_id, at, type, value, by, note FROM alert_events WHERE alert_id = ? ORDER BY at, id'),
    history: q<EventRow & { rule_id: string; device_id: string; series: string }>(
      `SELECT e.alert_id, e.at, e.type, e.value, e.by, e.note, a.rule_id, a.device_id, a.series FROM alert_events e JOIN alerts a ON a.id = e.alert_id
       WHERE e.client_id = ?1 AND (?2 IS NULL OR a.device_id = ?2) AND (?3 IS NULL OR a.rule_id = ?3) AND (?4 IS NULL OR e.at >= ?4) AND (?5 IS NULL OR e.at <= ?5)
       ORDER BY e.at DESC, e.id DESC LIMIT ?6`,
    ),
    silenceInsert: q(`INSERT INTO alert_silences (${SILENCE_COLS}) VALUES (${placeholders(SILENCE_COLS)})`),
    silenceUpdate: q(
      `UPDATE alert_silences SET ${SILENCE_COLS.split(', ')
        .slice(2, 11)
        .map((c) => `${c} = ?`)
        .join(', ')} WHERE client_id = ? AND id = ?`,
    ),
    silenceDelete: q('DELETE FROM alert_silences WHERE client_id = ? AND id = ?'),
    silenceById: q<SilenceRow>(`SELECT ${SILENCE_COLS} FROM alert_silences WHERE client_id = ? AND id = ?`),
    silencesOf: q<SilenceRow>(`SELECT ${SILENCE_COLS} FROM alert_silences WHERE client_id = ? ORDER BY created_at, id`),
    silenceCount: q<{ n: number }>('SELECT count(*) AS n FROM alert_silences WHERE client_id = ?'),
    silencesAll: q<SilenceRow>(`SELECT ${SILENCE_COLS} FROM alert_silences`),
    settingsOf: q<SettingsRow>('SELECT client_id, routing, group_window_seconds, defaults_created_at FROM alert_settings WHERE client_id = ?'),
    settingsAll: q<SettingsRow>('SELECT client_id, routing, group_window_seconds, defaults_created_at FROM alert_settings'),
    settingsUpsert: q(
      `INSERT INTO alert_settings (client_id, routing, group_window_seconds, defaults_created_at) VALUES (?1, ?2, ?3, ?4)
       ON CONFLICT (client_id) DO UPDATE SET routing = ?2, group_window_seconds = ?3, defaults_created_at = ?4`,
    ),
    depsOf: q<DependencyRow>('SELECT device_id, client_id, parent_device_id FROM alert_dependencies WHERE client_id = ? ORDER BY device_id'),
    depsAll: q<DependencyRow>('SELECT device_id, client_id, parent_device_id FROM alert_dependencies'),
    depUpsert: q('INSERT OR REPLACE INTO alert_dependencies (device_id, client_id, parent_device_id) VALUES (?, ?, ?)'),
    depDelete: q('DELETE FROM alert_dependencies WHERE client_id = ? AND device_id = ?'),
  }
  const filterArgs = (clientId: string, f: AlertFilter) => [clientId, f.state, f.deviceId, f.ruleId, f.since, f.until]

  return {
    transaction: <T>(fn: () => T): T => sqlite.transaction(fn)(),

    insertRule: (r: RuleRow) => void s.ruleInsert.run(...values(r, RULE_COLS)),
    updateRule: (r: RuleRow) => void s.ruleUpdate.run(...values(r, RULE_COLS).slice(2), r.client_id, r.id),
    deleteRule: (clientId: string, id: string) => s.ruleDelete.run(clientId, id).changes > 0,
    rule: (clientId: string, id: string) => s.ruleById.get(clientId, id),
    rulesOf: (clientId: string) => s.rulesOf.all(clientId),
    ruleCount: (clientId: string) => s.ruleCount.get(clientId)!.n,
    allRules: () => s.rulesAll.all(),
    overridesOf: (clientId: string) => s.overridesOf.all(clientId),
    allOverrides: () => s.overridesAll.all(),
    upsertOverride: (o: OverrideRow) => void s.overrideUpsert.run(...values(o, OVERRIDE_COLS)),
    deleteOverride: (clientId: string, ruleId: string, deviceId: string) => s.overrideDelete.run(clientId, ruleId, deviceId).changes > 0,

    /** every alert of a deleted device or check (with their events) */
    deleteAlertsOf: (clientId: string, subjectId: string) => void s.alertsOfSubjectDelete.run(clientId, subjectId),
    insertAlert: (a: AlertRow) => void s.alertInsert.run(...values(a, ALERT_COLS)),
    updateAlert: (a: AlertRow) => void s.alertUpdate.run(...values(a, ALERT_COLS).slice(4), a.id),
    deleteAlert: (id: string) => void s.alertDelete.run(id),
    alert: (clientId: string, id: string) => s.alertById.get(clientId, id),
    openAlerts: () => s.alertsOpen.all(),
    alertsPage: (clientId: string, f: AlertFilter, limit: number, offset: number) => s.alertsPage.all(...filterArgs(clientId, f), limit, offset),
    alertsCount: (clientId: string, f: AlertFilter) => s.alertsCount.get(...filterArgs(clientId, f))!.n,
    firingCounts: (clientId: string) => s.firingCounts.all(clientId),

    addEvent: (clientId: string, e: EventRow) => void s.eventInsert.run(e.alert_id, clientId, e.at, e.type, e.value, e.by, e.note),
    eventsOf: (alertId: string) => s.eventsOf.all(alertId),
    history: (clientId: string, deviceId: string | null, ruleId: string | null, since: number | null, until: number | null, limit: number) =>
      s.history.all(clientId, deviceId, ruleId, since, until, limit),

    insertSilence: (r: SilenceRow) => void s.silenceInsert.run(...values(r, SILENCE_COLS)),
    updateSilence: (r: SilenceRow) => void s.silenceUpdate.run(...values(r, SILENCE_COLS).slice(2, 11), r.client_id, r.id),
    deleteSilence: (clientId: string, id: string) => s.silenceDelete.run(clientId, id).changes > 0,
    silence: (clientId: string, id: string) => s.silenceById.get(clientId, id),
    silencesOf: (clientId: string) => s.silencesOf.all(clientId),
    silenceCount: (clientId: string) => s.silenceCount.get(clientId)!.n,
    allSilences: () => s.silencesAll.all(),

    settings: (clientId: string) => s.settingsOf.get(clientId),
    allSettings: () => s.settingsAll.all(),
    saveSettings: (r: SettingsRow) => void s.settingsUpsert.run(r.client_id, r.routing, r.group_window_seconds, r.defaults_created_at),

    dependenciesOf: (clientId: string) => s.depsOf.all(clientId),
    allDependencies: () => s.depsAll.all(),
    setDependency: (d: DependencyRow) => void s.depUpsert.run(d.device_id, d.client_id, d.parent_device_id),
    deleteDependency: (clientId: string, deviceId: string) => s.depDelete.run(clientId, deviceId).changes > 0,
  }
}

export type AlertsStore = ReturnType<typeof createAlertsStore>
