import { describe, expect, test } from 'bun:test'
import { CONTAINER_DEFAULT_RULES } from '../../../src/modules/containers/containers.defaults'
import { addMember } from '../../helpers/fixtures'
import { alertDevice as device, alertEngines, alertTenant as createTenant } from './engines'

/** Every case on SQLite, and again with the alerts module on PostgreSQL. */
const ENGINES = alertEngines()

for (const engine of ENGINES) {
  const skip = engine.skip
  const on = ` on ${engine.name} ${engine.skipReason}`

  describe(`rules API on ${engine.name}`, () => {
    test.skipIf(skip)(`create, read, change, disable, override, delete; the defaults listed and restorable${on}`, async () => {
      const t = await engine.make()
      const a = await createTenant(t)
      const dev = await device(t, a.clientId)
      const h = a.userHeaders
      const defaults = await t.request('GET', '/v1/alerts/defaults', { headers: h })
      expect(defaults.body.items.map((d: { key: string }) => d.key)).toEqual([
        'offline',
        'disk_90',
        'disk_forecast',
        'memory_95',
        'cpu_temp',
        ...CONTAINER_DEFAULT_RULES.map((r) => r.key),
      ])
      const mem = defaults.body.items.find((d: { key: string }) => d.key === 'memory_95')
      const edited = await t.request('PATCH', `/v1/alerts/rules/${mem.rule_id}`, { headers: h, body: { threshold: 97, for_seconds: 300 } })
      expect(edited.body).toMatchObject({ threshold: 97, for_seconds: 300, builtin: 'memory_95', recovery_threshold: 90 })
      expect((await t.request('DELETE', `/v1/alerts/rules/${mem.rule_id}`, { headers: h })).status).toBe(204)
      const restored = await t.request('POST', '/v1/alerts/defaults/restore', { headers: h })
      expect(restored.body.items.find((d: { key: string }) => d.key === 'memory_95').rule_id).not.toBe(mem.rule_id)
      // on PostgreSQL the rules are there, not in the SQLite file
      const where = t.ctx.pg
        ? (await t.ctx.pg`SELECT count(*)::int AS n FROM alert_rules WHERE client_id = ${a.clientId}`)[0].n
        : (t.db.sqlite.query('SELECT count(*) AS n FROM alert_rules WHERE client_id = ?').get(a.clientId) as { n: number }).n
      expect(where).toBe(defaults.body.items.length)
      if (t.ctx.pg) expect(t.db.sqlite.query('SELECT count(*) AS n FROM alert_rules').get()).toEqual({ n: 0 })

      const made = await t.request('POST', '/v1/alerts/rules', {
        headers: h,
        body: {
          name: 'Link down',
          metric: 'interfaces:*:is_up',
          operator: '<',
          threshold: 1,
          severity: 'critical',
          for_seconds: 60,
          scope: { type: 'device', value: dev },
        },
      })
      expect(made.status).toBe(201)
      expect(made.body).toMatchObject({ kind: 'threshold', enabled: true, operator: '<', scope: { type: 'device', value: dev }, overrides: [] })
      const off = await t.request('POST', `/v1/alerts/rules/${made.body.id}/disable`, { headers: h })
      expect(off.body.enabled).toBe(false)
      const ov = await t.request('PUT', `/v1/alerts/rules/${made.body.id}/overrides/${dev}`, { headers: h, body: { for_seconds: 0, severity: 'warning' } })
      expect(ov.body.overrides).toEqual([{ device_id: dev, enabled: null, threshold: null, recovery_threshold: null, for_seconds: 0, severity: 'warning' }])
      expect((await t.request('DELETE', `/v1/alerts/rules/${made.body.id}/overrides/${dev}`, { headers: h })).status).toBe(204)
      expect((await t.request('DELETE', `/v1/alerts/rules/${made.body.id}`, { headers: h })).status).toBe(204)
      expect((await t.request('GET', `/v1/alerts/rules/${made.body.id}`, { headers: h })).status).toBe(404)
    })

    const bad: [string, unknown, string[]][] = [
      ['no metric', { name: 'x', threshold: 1 }, ['body', 'metric']],
      ['unreadable metric', { name: 'x', metric: 'disk_partitions', threshold: 1 }, ['body', 'metric']],
      ['no threshold', { name: 'x', metric: 'cpu_percent' }, ['body', 'threshold']],
      ['recovery on the wrong side', { name: 'x', metric: 'cpu_percent', threshold: 90, recovery_threshold: 95 }, ['body', 'recovery_threshold']],
      ['a metric on an offline rule', { name: 'x', kind: 'offline', metric: 'cpu_percent' }, ['body', 'metric']],
      ['scope all with a value', { name: 'x', metric: 'cpu_percent', threshold: 1, scope: { type: 'all', value: 'x' } }, ['body', 'scope', 'value']],
      ['a bad tag', { name: 'x', metric: 'cpu_percent', threshold: 1, scope: { type: 'tag', value: 'Not A Tag' } }, ['body', 'scope', 'value']],
      ['an unknown device', { name: 'x', metric: 'cpu_percent', threshold: 1, scope: { type: 'device', value: 'dev_nope' } }, ['body', 'scope', 'value']],
      ['a wrong type', { name: 'x', metric: 'cpu_percent', threshold: '90' }, ['body', 'threshold']],
      ['an unknown kind', { name: 'x', kind: 'weird' }, ['body', 'kind']],
    ]
    // the body is refused before any store is asked: once, on SQLite, is enough
    for (const [name, body, loc] of engine.name === 'sqlite' ? bad : []) {
      test.skipIf(skip)(`422: ${name}${on}`, async () => {
        const t = await engine.make()
        const a = await createTenant(t)
        const res = await t.request('POST', '/v1/alerts/rules', { headers: a.userHeaders, body })
        expect(res.status).toBe(422)
        expect(res.body.detail.map((d: { loc: string[] }) => d.loc)).toContainEqual(loc)
      })
    }

    test.skipIf(skip)(`another tenant's rule, alert, silence and device answer 404${on}`, async () => {
      const t = await engine.make()
      const a = await createTenant(t)
      const b = await createTenant(t)
      const devA = await device(t, a.clientId)
      const rule = await t.request('POST', '/v1/alerts/rules', { headers: a.userHeaders, body: { name: 'x', metric: 'cpu_percent', threshold: 1 } })
      const sil = await t.request('POST', '/v1/alerts/silences', { headers: a.userHeaders, body: { ends_at: '2030-01-01T00:00:00Z' } })
      await t.request('POST', '/v1/metrics/hardware', { headers: { ...a.keyHeaders, 'x-device-id': devA }, body: { cpu_percent: 50 } })
      const alert = (await t.request('GET', '/v1/alerts', { headers: a.userHeaders })).body.items[0]
      expect(alert.state).toBe('firing')
      const hb = b.userHeaders
      for (const [method, path, body] of [
        ['GET', `/v1/alerts/rules/${rule.body.id}`],
        ['PATCH', `/v1/alerts/rules/${rule.body.id}`, {}],
        ['DELETE', `/v1/alerts/rules/${rule.body.id}`],
        ['GET', `/v1/alerts/${alert.id}`],
        ['POST', `/v1/alerts/${alert.id}/acknowledge`, {}],
        ['GET', `/v1/alerts/silences/${sil.body.id}`],
        ['DELETE', `/v1/alerts/silences/${sil.body.id}`],
        ['PUT', `/v1/alerts/rules/${rule.body.id}/overrides/${devA}`, {}],
        ['PUT', `/v1/alerts/dependencies/${devA}`, { parent_device_id: devA }],
      ] as [string, string, unknown?][]) {
        const res = await t.request(method, path, { headers: hb, body })
        expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 })
      }
      expect((await t.request('GET', '/v1/alerts', { headers: hb })).body.total).toBe(0)
    })

    test.skipIf(skip)(`a member reads and acknowledges, but cannot change rules${on}`, async () => {
      const t = await engine.make()
      const a = await createTenant(t)
      const dev = await device(t, a.clientId)
      await t.request('POST', '/v1/alerts/rules', { headers: a.userHeaders, body: { name: 'x', metric: 'cpu_percent', threshold: 1 } })
      await t.request('POST', '/v1/metrics/hardware', { headers: { ...a.keyHeaders, 'x-device-id': dev }, body: { cpu_percent: 50 } })
      const m = await addMember(t, a.clientId, 'member')
      const list = await t.request('GET', '/v1/alerts?state=firing', { headers: m.headers })
      const ack = await t.request('POST', `/v1/alerts/${list.body.items[0].id}/acknowledge`, { headers: m.headers, body: { note: 'looking' } })
      expect(ack.status).toBe(200)
      expect(ack.body.acknowledged.note).toBe('looking')
      const history = await t.request('GET', `/v1/alerts/history?device_id=${dev}`, { headers: m.headers })
      expect(history.body.items.map((e: { type: string }) => e.type)).toEqual(['acknowledged', 'not_notified', 'firing', 'pending'])
    })
  })

  describe(`silences API on ${engine.name}`, () => {
    const bad: [string, unknown, string[]][] = [
      ['no window at all', { comment: 'x' }, ['body', 'ends_at']],
      ['end before start', { starts_at: '2030-01-02T00:00:00Z', ends_at: '2030-01-01T00:00:00Z' }, ['body', 'ends_at']],
      ['a bad cron', { cron: 'every day', duration_seconds: 3600 }, ['body', 'cron']],
      ['a cron without duration', { cron: '0 2 * * *' }, ['body', 'duration_seconds']],
      ['an unknown time zone', { cron: '0 2 * * *', duration_seconds: 3600, timezone: 'Mars/Olympus' }, ['body', 'timezone']],
    ]
    // the body is refused before any store is asked: once, on SQLite, is enough
    for (const [name, body, loc] of engine.name === 'sqlite' ? bad : []) {
      test.skipIf(skip)(`422: ${name}${on}`, async () => {
        const t = await engine.make()
        const a = await createTenant(t)
        const res = await t.request('POST', '/v1/alerts/silences', { headers: a.userHeaders, body })
        expect(res.status).toBe(422)
        expect(res.body.detail.map((d: { loc: string[] }) => d.loc)).toContainEqual(loc)
      })
    }

    test.skipIf(skip)(`recurring silences report whether they are open now${on}`, async () => {
      const t = await engine.make()
      t.clock.set(Date.parse('2026-03-01T01:50:00Z'))
      const a = await createTenant(t)
      const res = await t.request('POST', '/v1/alerts/silences', {
        headers: a.userHeaders,
        body: { comment: 'backups', cron: '0 2 * * *', duration_seconds: 3600, timezone: 'Europe/Paris' },
      })
      expect(res.status).toBe(201)
      expect(res.body).toMatchObject({ active: true, timezone: 'Europe/Paris', created_by: a.email })
      t.clock.set(Date.parse('2026-03-01T02:00:00Z'))
      expect((await t.request('GET', `/v1/alerts/silences/${res.body.id}`, { headers: a.userHeaders })).body.active).toBe(false)
    })
  })
}
