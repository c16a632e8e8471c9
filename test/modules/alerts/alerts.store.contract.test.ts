import { describe, expect, test } from 'bun:test'
import type { AlertFilter, AlertRow, RuleRow, SilenceRow } from '../../../src/modules/alerts/alerts.rows'
import { type AlertsStore, createAlertsStore } from '../../../src/modules/alerts/alerts.store'
import { createAlertsStorePg } from '../../../src/modules/alerts/alerts.store.pg'
import { ENGINES, type EngineDb } from '../../helpers/engines'

/** The alerts store answers the same on SQLite and on PostgreSQL. */
const storeOf = (db: EngineDb): AlertsStore => (db.sqlite ? createAlertsStore(db.sqlite) : createAlertsStorePg(db.pg!))

const T0 = 1_700_000_000_000
const rule = (over: Partial<RuleRow> & { id: string }): RuleRow => ({
  client_id: 'c1',
  name: over.id,
  enabled: 1,
  kind: 'threshold',
  metric: 'cpu_percent',
  operator: '>',
  threshold: 90.5,
  recovery_threshold: null,
  for_seconds: 0,
  offline_intervals: null,
  forecast_hours: null,
  severity: 'warning',
  scope_type: 'all',
  scope_value: null,
  channel_ids: '[]',
  repeat_seconds: null,
  notify_recovery: 1,
  recovery_delay_seconds: 0,
  builtin: null,
  created_at: T0,
  updated_at: T0,
  ...over,
})
const alert = (over: Partial<AlertRow> & { id: string }): AlertRow => ({
  client_id: 'c1',
  rule_id: 'r1',
  device_id: 'd1',
  series: '',
  state: 'pending',
  severity: 'warning',
  value: 95.5,
  threshold: 90.5,
  started_at: T0,
  fired_at: null,
  resolved_at: null,
  ack_by: null,
  ack_at: null,
  ack_note: null,
  suppressed_by: null,
  context: null,
  last_notified_at: null,
  recovery_due_at: null,
  ...over,
})
const silence = (over: Partial<SilenceRow> & { id: string }): SilenceRow => ({
  client_id: 'c1',
  comment: '',
  scope_type: 'all',
  scope_value: null,
  rule_id: null,
  starts_at: T0,
  ends_at: T0 + 1000,
  cron: null,
  duration_seconds: null,
  timezone: null,
  created_by: 'a@example.com',
  created_at: T0,
  ...over,
})
const ev = (type: string, at = T0, value: number | null = null) => ({ at, type, value, by: null, note: null })
const NONE: AlertFilter = { state: null, deviceId: null, ruleId: null, since: null, until: null }

async function seed(db: EngineDb) {
  for (const c of ['c1', 'c2', 'c3']) await db.exec('INSERT INTO clients (id, name, created_at, updated_at) VALUES (?, ?, 1, 1)', [c, c])
  for (const [d, c] of [
    ['d1', 'c1'],
    ['d2', 'c1'],
    ['d9', 'c2'],
  ])
    await db.exec("INSERT INTO devices (id, client_id, fingerprint, created_at, updated_at, tags) VALUES (?, ?, ?, 1, 1, '[]')", [d, c, d])
}

for (const engine of ENGINES) {
  describe(`alerts store on ${engine.name}`, () => {
    const handle = engine.lifecycle()
    const skip = engine.skip
    let store: AlertsStore
    let seeded = false
    const ready = async () => {
      store = storeOf(handle.db)
      if (!seeded) await seed(handle.db)
      seeded = true
    }

    test.skipIf(skip)(`rules are added within the client's limit, read back oldest first and never across clients ${engine.skipReason}`, async () => {
      await ready()
      expect(await store.addRules('c1', [rule({ id: 'r2', created_at: T0 + 1 }), rule({ id: 'r1', created_at: T0 + 1 })], 3)).toBe(2)
      expect(await store.addRules('c1', [rule({ id: 'r3' }), rule({ id: 'r4' })], 3)).toBeNull()
      expect(await store.rule('c1', 'r3')).toBeNull()
      expect(await store.addRules('c1', [rule({ id: 'r0' })], 3)).toBe(1)
      expect((await store.rulesOf('c1')).map((r) => r.id)).toEqual(['r0', 'r1', 'r2'])
      expect(await store.rule('c1', 'r1')).toEqual(rule({ id: 'r1', created_at: T0 + 1 }))
      expect(await store.rule('c2', 'r1')).toBeNull()
      expect(await store.rulesOf('c2')).toEqual([])
      const changed = rule({ id: 'r1', name: 'changed', enabled: 0, threshold: null, repeat_seconds: 60, created_at: T0 + 1, updated_at: T0 + 9 })
      expect(await store.updateRule(changed)).toBe(true)
      expect(await store.rule('c1', 'r1')).toEqual(changed)
      expect(await store.updateRule({ ...changed, client_id: 'c2', name: 'stolen' })).toBe(false)
      expect((await store.rule('c1', 'r1'))!.name).toBe('changed')
      expect(await store.deleteRule('c2', 'r0')).toBe(false)
      expect(await store.deleteRule('c1', 'r0')).toBe(true)
      expect(await store.deleteRule('c1', 'r0')).toBe(false)
    })

    test.skipIf(skip)(`the default rules are made once per client; a built-in rule the client has is skipped ${engine.skipReason}`, async () => {
      await ready()
      const defaults = [rule({ id: 'b1', client_id: 'c3', builtin: 'offline' }), rule({ id: 'b2', client_id: 'c3', builtin: 'disk_90' })]
      expect(await store.addRules('c3', [rule({ id: 'b0', client_id: 'c3', builtin: 'offline' })], 10)).toBe(1)
      expect(await store.makeDefaults('c3', defaults, 30, T0)).toBe(true)
      expect((await store.rulesOf('c3')).map((r) => [r.id, r.builtin])).toEqual([
        ['b0', 'offline'],
        ['b2', 'disk_90'],
      ])
      expect(await store.makeDefaults('c3', [rule({ id: 'b3', client_id: 'c3', builtin: 'cpu' })], 30, T0 + 1)).toBe(false)
      expect(await store.rule('c3', 'b3')).toBeNull()
      expect(await store.settings('c3')).toEqual({
        client_id: 'c3',
        routing: '{"warning":[],"critical":[]}',
        group_window_seconds: 30,
        defaults_created_at: T0,
      })
      // restoring: a built-in the client still has is skipped, not doubled
      expect(await store.addRules('c3', [rule({ id: 'b4', client_id: 'c3', builtin: 'disk_90' })], 10)).toBe(0)
      expect(await store.alertingClients()).toEqual([
        { clientId: 'c1', defaultsMade: false },
        { clientId: 'c3', defaultsMade: true },
      ])
    })

    test.skipIf(skip)(`settings keep whether the defaults were made; saving them makes none ${engine.skipReason}`, async () => {
      await ready()
      expect(await store.settings('c2')).toBeNull()
      await store.saveSettings('c2', '{"warning":["ch1"],"critical":[]}', 0)
      expect(await store.settings('c2')).toEqual({
        client_id: 'c2',
        routing: '{"warning":["ch1"],"critical":[]}',
        group_window_seconds: 0,
        defaults_created_at: null,
      })
      await store.saveSettings('c3', '{"warning":[],"critical":["ch2"]}', 120)
      expect(await store.settings('c3')).toMatchObject({ group_window_seconds: 120, defaults_created_at: T0 })
      expect(await store.makeDefaults('c2', [], 60, T0 + 5)).toBe(true)
      expect(await store.settings('c2')).toMatchObject({ routing: '{"warning":["ch1"],"critical":[]}', group_window_seconds: 0, defaults_created_at: T0 + 5 })
    })

    test.skipIf(skip)(`overrides: replaced by an upsert, listed by rule and device, deleted within their client ${engine.skipReason}`, async () => {
      await ready()
      const o = {
        rule_id: 'r2',
        device_id: 'd2',
        client_id: 'c1',
        enabled: null,
        threshold: 50.5,
        recovery_threshold: null,
        for_seconds: 10,
        severity: null,
        updated_at: T0,
      }
      await store.upsertOverride(o)
      await store.upsertOverride({ ...o, device_id: 'd1', enabled: 0, threshold: null, severity: 'critical' })
      await store.upsertOverride({ ...o, threshold: 60, updated_at: T0 + 1 })
      expect(await store.overridesOf('c1')).toEqual([
        { ...o, device_id: 'd1', enabled: 0, threshold: null, severity: 'critical' },
        { ...o, threshold: 60, updated_at: T0 + 1 },
      ])
      expect(await store.overridesOf('c2')).toEqual([])
      expect(await store.deleteOverride('c2', 'r2', 'd1')).toBe(false)
      expect(await store.deleteOverride('c1', 'r2', 'd1')).toBe(true)
      expect((await store.overridesOf('c1')).length).toBe(1)
    })

    test.skipIf(skip)(`a series has one open alert: a second start finds the first; fire, resolve and cancel each land once ${engine.skipReason}`, async () => {
      await ready()
      const a = alert({ id: 'a1' })
      expect(await store.startAlert(a, [ev('pending', T0, 95.5)])).toEqual({ won: true, alert: a })
      expect(await store.startAlert(alert({ id: 'a1b', state: 'firing' }), [ev('pending')])).toEqual({ won: false, alert: a })
      expect(await store.alert('c1', 'a1b')).toBeNull()
      // another series of the same rule and device is its own
      expect((await store.startAlert(alert({ id: 'a2', series: '/data', started_at: T0 + 1 }), [])).won).toBe(true)
      const fired = { ...a, state: 'firing', fired_at: T0 + 5, value: 97, context: '{"cpu_percent":97}' }
      expect(await store.fireAlert({ ...fired, client_id: 'c2' }, ev('firing'))).toBe(false)
      expect(await store.fireAlert(fired, ev('firing', T0 + 5, 97))).toBe(true)
      expect(await store.fireAlert(fired, ev('firing', T0 + 5, 97))).toBe(false)
      expect(await store.alert('c1', 'a1')).toEqual(fired)
      expect(await store.alert('c2', 'a1')).toBeNull()
      expect(await store.cancelAlert('c1', 'a1')).toBe(false) // firing, not pending
      expect(await store.cancelAlert('c2', 'a2')).toBe(false)
      expect(await store.cancelAlert('c1', 'a2')).toBe(true)
      expect(await store.alert('c1', 'a2')).toBeNull()
      const resolved = { ...fired, state: 'resolved', resolved_at: T0 + 9, value: 10, recovery_due_at: T0 + 60 }
      expect(await store.resolveAlert(resolved, ev('resolved', T0 + 9, 10))).toBe(true)
      expect(await store.resolveAlert(resolved, ev('resolved', T0 + 9, 10))).toBe(false)
      expect(await store.alert('c1', 'a1')).toEqual(resolved)
      expect((await store.eventsOf('c1', 'a1')).map((e) => [e.type, e.at, e.value])).toEqual([
        ['pending', T0, 95.5],
        ['firing', T0 + 5, 97],
        ['resolved', T0 + 9, 10],
      ])
      expect(await store.eventsOf('c2', 'a1')).toEqual([])
    })

    test.skipIf(skip)(`a relapse reopens a resolved alert whose recovery notice waits, once; notices are claimed once ${engine.skipReason}`, async () => {
      await ready()
      const seen = (await store.alert('c1', 'a1'))!
      expect((await store.openAlerts()).map((x) => x.id)).toEqual(['a1'])
      const reopened = await store.reopenAlert('c1', 'a1', 99, ev('reopened', T0 + 20, 99))
      expect(reopened).toEqual({ ...seen, state: 'firing', resolved_at: null, recovery_due_at: null, value: 99 })
      expect(await store.reopenAlert('c1', 'a1', 99, ev('reopened'))).toBeNull()
      // the first notice: one claim of two with the same view wins; then a repeat claims from the new time
      expect(await store.claimNotice('firing', reopened!, T0 + 30)).toBe(true)
      expect(await store.claimNotice('firing', reopened!, T0 + 30)).toBe(false)
      const notified = (await store.alert('c1', 'a1'))!
      expect(notified.last_notified_at).toBe(T0 + 30)
      expect(await store.claimNotice('repeat', { ...notified, client_id: 'c2' }, T0 + 40)).toBe(false)
      expect(await store.claimNotice('repeat', notified, T0 + 40)).toBe(true)
      const repeated = (await store.alert('c1', 'a1'))!
      // acknowledged: no more repeats
      const acked = await store.acknowledgeAlert('c1', 'a1', 'ops@example.com', 'looking', T0 + 50)
      expect(acked).toEqual({ ...repeated, ack_by: 'ops@example.com', ack_at: T0 + 50, ack_note: 'looking' })
      expect(await store.acknowledgeAlert('c2', 'a1', 'x', '', T0 + 50)).toBeNull()
      expect(await store.claimNotice('repeat', acked!, T0 + 60)).toBe(false)
      await store.setSuppressed('c1', 'a1', 'd2', ev('suppressed', T0 + 55))
      await store.setSuppressed('c2', 'a1', null, ev('unsuppressed', T0 + 56))
      expect((await store.alert('c1', 'a1'))!.suppressed_by).toBe('d2')
      // resolved with a delayed recovery notice: it is claimed once, clearing the due time
      const resolved = { ...acked!, suppressed_by: 'd2', state: 'resolved', resolved_at: T0 + 70, recovery_due_at: T0 + 80 }
      expect(await store.resolveAlert(resolved, ev('resolved', T0 + 70))).toBe(true)
      expect(await store.acknowledgeAlert('c1', 'a1', 'x', '', T0 + 75)).toBeNull()
      expect(await store.claimNotice('resolved', { ...resolved, recovery_due_at: T0 + 81 }, T0 + 80)).toBe(false)
      expect(await store.claimNotice('resolved', resolved, T0 + 80)).toBe(true)
      expect(await store.claimNotice('resolved', resolved, T0 + 80)).toBe(false)
      expect((await store.alert('c1', 'a1'))!.recovery_due_at).toBeNull()
      expect(await store.openAlerts()).toEqual([])
      expect((await store.eventsOf('c1', 'a1')).map((e) => e.type)).toEqual([
        'pending',
        'firing',
        'resolved',
        'reopened',
        'acknowledged',
        'suppressed',
        'resolved',
      ])
      expect((await store.eventsOf('c1', 'a1'))[4]).toEqual({
        alert_id: 'a1',
        at: T0 + 50,
        type: 'acknowledged',
        value: null,
        by: 'ops@example.com',
        note: 'looking',
      })
    })

    test.skipIf(skip)(`a relapse is refused while the series has another open alert ${engine.skipReason}`, async () => {
      await ready()
      await store.startAlert(alert({ id: 'a3', state: 'resolved', resolved_at: T0, recovery_due_at: T0 + 100, device_id: 'd2' }), [])
      await store.startAlert(alert({ id: 'a4', device_id: 'd2', started_at: T0 + 2 }), [])
      expect(await store.reopenAlert('c1', 'a3', 1, ev('reopened'))).toBeNull()
      expect(await store.reopenAlert('c2', 'a4', 1, ev('reopened'))).toBeNull()
      expect((await store.openAlerts()).map((x) => x.id)).toEqual(['a3', 'a4'])
    })

    test.skipIf(skip)(`alerts are paged newest first with their filters, counted, and grouped per device when firing ${engine.skipReason}`, async () => {
      await ready()
      await store.startAlert(alert({ id: 'a5', state: 'firing', device_id: 'd2', series: 'x', started_at: T0 + 2 }), [ev('firing', T0 + 2)])
      await store.startAlert(alert({ id: 'z1', client_id: 'c2', device_id: 'd9', state: 'firing' }), [ev('firing')])
      const ids = async (f: Partial<AlertFilter>, limit = 10, offset = 0) => (await store.alertsPage('c1', { ...NONE, ...f }, limit, offset)).map((a) => a.id)
      expect(await ids({})).toEqual(['a5', 'a4', 'a3', 'a1'])
      expect(await ids({}, 2, 1)).toEqual(['a4', 'a3'])
      expect(await ids({ state: 'firing' })).toEqual(['a5'])
      expect(await ids({ deviceId: 'd2' })).toEqual(['a5', 'a4', 'a3'])
      expect(await ids({ ruleId: 'r2' })).toEqual([])
      expect(await ids({ since: T0 + 71 })).toEqual(['a5', 'a4'])
      expect(await ids({ until: T0 + 1 })).toEqual(['a3', 'a1'])
      expect(await store.alertsCount('c1', NONE)).toBe(4)
      expect(await store.alertsCount('c1', { ...NONE, state: 'pending' })).toBe(1)
      expect(await store.alertsCount('c2', NONE)).toBe(1)
      expect(await store.firingCounts('c1')).toEqual([{ device_id: 'd2', n: 1 }])
      expect(await store.firingCounts('c3')).toEqual([])
      const history = await store.history('c1', null, null, null, null, 3)
      expect(history.map((h) => [h.alert_id, h.type, h.at])).toEqual([
        ['a1', 'resolved', T0 + 70],
        ['a1', 'suppressed', T0 + 55],
        ['a1', 'acknowledged', T0 + 50],
      ])
      expect(history[0]).toMatchObject({ rule_id: 'r1', device_id: 'd1', series: '' })
      expect((await store.history('c1', 'd2', null, null, null, 10)).map((h) => h.alert_id)).toEqual(['a5'])
      expect((await store.history('c1', null, null, T0 + 1, T0 + 9, 10)).map((h) => [h.type, h.at])).toEqual([
        ['resolved', T0 + 9],
        ['firing', T0 + 5],
        ['firing', T0 + 2],
      ])
      expect((await store.history('c2', null, null, null, null, 10)).map((h) => h.alert_id)).toEqual(['z1'])
      await store.addEvent('c1', 'a5', { at: T0 + 3, type: 'silenced', value: null, by: null, note: 'n' })
      expect((await store.eventsOf('c1', 'a5')).map((e) => e.type)).toEqual(['firing', 'silenced'])
      await store.deleteAlertsOf('c2', 'd2')
      expect(await store.alertsCount('c1', NONE)).toBe(4)
      await store.deleteAlertsOf('c1', 'd2')
      expect(await ids({})).toEqual(['a1'])
      expect(await store.eventsOf('c1', 'a5')).toEqual([])
    })

    test.skipIf(skip)(`hubs starting the same series at once make one alert ${engine.skipReason}`, async () => {
      await ready()
      const other = storeOf(handle.db)
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) => (i % 2 ? other : store).startAlert(alert({ id: `race${i}`, series: 'race' }), [ev('pending')])),
      )
      expect(results.filter((r) => r.won).length).toBe(1)
      const winner = results.find((r) => r.won)!.alert.id
      for (const r of results) expect(r.alert.id).toBe(winner)
      const fires = await Promise.all(
        [store, other, store, other].map((s) => s.fireAlert({ ...results[0]!.alert, state: 'firing', fired_at: T0 }, ev('firing'))),
      )
      expect(fires.filter(Boolean).length).toBe(1)
      const seen = (await store.alert('c1', winner))!
      const claims = await Promise.all([store, other, store, other].map((s) => s.claimNotice('firing', seen, T0 + 1)))
      expect(claims.filter(Boolean).length).toBe(1)
      expect((await store.eventsOf('c1', winner)).map((e) => e.type)).toEqual(['pending', 'firing'])
    })

    test.skipIf(skip)(`silences are added within the limit, listed oldest first, changed and lifted within their client ${engine.skipReason}`, async () => {
      await ready()
      expect(await store.addSilence(silence({ id: 's2', created_at: T0 + 1 }), 2)).toBe(true)
      expect(
        await store.addSilence(
          silence({ id: 's1', created_at: T0 + 1, cron: '0 2 * * *', duration_seconds: 3600, timezone: 'UTC', starts_at: null, ends_at: null }),
          2,
        ),
      ).toBe(true)
      expect(await store.addSilence(silence({ id: 's3' }), 2)).toBe(false)
      expect(await store.addSilence(silence({ id: 's3', client_id: 'c2', rule_id: null }), 2)).toBe(true)
      expect((await store.silencesOf('c1')).map((x) => x.id)).toEqual(['s1', 's2'])
      expect(await store.silence('c1', 's1')).toEqual(
        silence({ id: 's1', created_at: T0 + 1, cron: '0 2 * * *', duration_seconds: 3600, timezone: 'UTC', starts_at: null, ends_at: null }),
      )
      expect(await store.silence('c2', 's1')).toBeNull()
      const changed = silence({ id: 's2', created_at: T0 + 1, comment: 'maintenance', scope_type: 'device', scope_value: 'd1', rule_id: 'r1', ends_at: null })
      expect(await store.updateSilence(changed)).toBe(true)
      expect(await store.silence('c1', 's2')).toEqual(changed)
      expect(await store.updateSilence({ ...changed, client_id: 'c2' })).toBe(false)
      expect(await store.deleteSilence('c2', 's2')).toBe(false)
      expect(await store.deleteSilence('c1', 's2')).toBe(true)
      expect((await store.silencesOf('c1')).map((x) => x.id)).toEqual(['s1'])
    })

    test.skipIf(skip)(`gateways: set, replaced, listed by device and removed within their client ${engine.skipReason}`, async () => {
      await ready()
      await store.setDependency({ device_id: 'd2', client_id: 'c1', parent_device_id: 'd1' })
      await store.setDependency({ device_id: 'd1', client_id: 'c1', parent_device_id: 'd2' })
      await store.setDependency({ device_id: 'd1', client_id: 'c1', parent_device_id: 'd1' })
      expect(await store.dependenciesOf('c1')).toEqual([
        { device_id: 'd1', client_id: 'c1', parent_device_id: 'd1' },
        { device_id: 'd2', client_id: 'c1', parent_device_id: 'd1' },
      ])
      expect(await store.dependenciesOf('c2')).toEqual([])
      expect(await store.deleteDependency('c2', 'd1')).toBe(false)
      expect(await store.deleteDependency('c1', 'd1')).toBe(true)
      expect((await store.dependenciesOf('c1')).map((d) => d.device_id)).toEqual(['d2'])
    })
  })
}
