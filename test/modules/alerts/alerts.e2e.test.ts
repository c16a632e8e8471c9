import { describe, expect, test } from 'bun:test'
import { CONTAINER_DEFAULT_RULES } from '../../../src/modules/containers/containers.defaults'
import { runRollup } from '../../../src/modules/metrics/metrics.jobs'
import type { AlertNotification } from '../../../src/modules/alerts/alerts.model'
import { insertChannelOn } from './channel-rows'
import { hardwareSample } from '../../helpers/samples'
import { alertDevice, alertEngines, alertTenant as createTenant } from './engines'

/** On SQLite, and again with the alerts module on PostgreSQL. */
const ENGINES = alertEngines()

async function setup(engine: (typeof ENGINES)[number]) {
  const sent: { clientId: string; channels: string[]; n: AlertNotification }[] = []
  const t = await engine.make({
    notify: (clientId, channels, n) => {
      sent.push({ clientId, channels, n })
      return channels.length
    },
  })
  const events: { type: string; data: any }[] = []
  t.ctx.events.subscribeAll((e) => events.push({ type: e.type, data: e.data }))
  return { t, sent, events }
}

for (const engine of ENGINES) {
  const on = ` on ${engine.name} ${engine.skipReason}`
  describe(`alerts end to end on ${engine.name}`, () => {
    test.skipIf(engine.skip)(
      `metrics posted through the API trip a rule: firing alert, bus event, grouped notice to the rule and severity channels${on}`,
      async () => {
        const { t, sent, events } = await setup(engine)
        const tenant = await createTenant(t)
        const deviceId = await alertDevice(t, tenant.clientId, { hostname: 'web-1' })
        const [pager, slack] = [await insertChannelOn(t, tenant.clientId), await insertChannelOn(t, tenant.clientId)]
        const settings = await t.request('PATCH', '/v1/alerts/settings', {
          headers: tenant.userHeaders,
          body: { routing: { warning: [], critical: [pager] } },
        })
        expect(settings.status).toBe(200)
        const rule = await t.request('POST', '/v1/alerts/rules', {
          headers: tenant.userHeaders,
          body: { name: 'CPU busy', metric: 'cpu_percent', operator: '>', threshold: 90, recovery_threshold: 80, severity: 'critical', channel_ids: [slack] },
        })
        expect(rule.status).toBe(201)
        expect(rule.body.kind).toBe('threshold')

        const post = (cpu: number) =>
          t.request('POST', '/v1/metrics/hardware', {
            headers: { ...tenant.keyHeaders, 'x-device-id': deviceId },
            body: { ...hardwareSample(0), cpu_percent: cpu },
          })
        expect((await post(50)).status).toBe(201)
        expect(events.filter((e) => e.type.startsWith('alert.'))).toEqual([])
        t.clock.advance(10_000)
        expect((await post(95)).status).toBe(201)

        const firing = events.filter((e) => e.type === 'alert.firing')
        expect(firing).toHaveLength(1)
        const alert = firing[0]!.data.alert
        expect(alert).toMatchObject({
          rule: { id: rule.body.id, name: 'CPU busy', severity: 'critical' },
          device: { id: deviceId, name: 'web-1' },
          state: 'firing',
          value: 95,
          threshold: 90,
        })
        expect(alert.context.sample.values.cpu_percent).toBe(95)
        expect(sent).toHaveLength(1)
        expect(sent[0]!.channels.sort()).toEqual([pager, slack].sort())
        expect(sent[0]!.n).toMatchObject({ event: 'firing', severity: 'critical', devices: [{ id: deviceId, name: 'web-1' }], alert_ids: [alert.id] })
        expect(sent[0]!.n.title).toBe('CRITICAL: CPU used above 90 % on web-1')
        expect(sent[0]!.n.body).toBe(`Rule: CPU busy (critical)\nweb-1: CPU used above 90 % (now 95 %); firing since ${alert.fired_at}`)

        // still above the recovery threshold (hysteresis): nothing changes
        t.clock.advance(10_000)
        await post(85)
        expect(events.filter((e) => e.type === 'alert.resolved')).toHaveLength(0)
        t.clock.advance(10_000)
        await post(70)
        expect(events.filter((e) => e.type === 'alert.resolved')).toHaveLength(1)
        expect(sent.map((s) => s.n.event)).toEqual(['firing', 'resolved'])
        // the recovery in words, with the recovery threshold of the rule and the value that crossed it
        expect(sent[1]!.n.title).toBe('RESOLVED: CPU used back at or below 80 % (now 70 %) on web-1')
        expect(sent[1]!.n.body.split('\n')[1]).toBe(
          `web-1: CPU used back at or below 80 % (now 70 %); resolved at ${new Date(t.clock.now()).toISOString()}, 20 s after it fired`,
        )

        const one = await t.request('GET', `/v1/alerts/${alert.id}`, { headers: tenant.userHeaders })
        expect(one.status).toBe(200)
        expect(one.body.state).toBe('resolved')
        expect(one.body.timeline.map((e: { type: string }) => e.type)).toEqual(['pending', 'firing', 'notified', 'resolved', 'notified'])
        expect(one.body.timeline[2].note).toBe('firing notice queued for 2 channel(s)')

        const list = await t.request('GET', `/v1/alerts?state=resolved&device_id=${deviceId}`, { headers: tenant.userHeaders })
        expect(list.body.total).toBe(1)
      },
    )

    test.skipIf(engine.skip)(`a disk_forecast rule fires once from posted samples whose fullest disk grows 5 points an hour${on}`, async () => {
      const { t, sent, events } = await setup(engine)
      const tenant = await createTenant(t)
      const deviceId = await alertDevice(t, tenant.clientId, { hostname: 'nas-1' })
      const pager = await insertChannelOn(t, tenant.clientId)
      const rule = await t.request('POST', '/v1/alerts/rules', {
        headers: tenant.userHeaders,
        body: { name: 'Disk fills', kind: 'disk_forecast', forecast_hours: 48, severity: 'critical', channel_ids: [pager] },
      })
      expect(rule.status).toBe(201)
      // six hours of samples, the root partition 50 % → 75 %: full in 5 hours at that pace
      for (let h = 0; h < 6; h++) {
        const sample = hardwareSample(h)
        sample.disk_partitions[0]!.percent = 50 + 5 * h
        const posted = await t.request('POST', '/v1/metrics/hardware', { headers: { ...tenant.keyHeaders, 'x-device-id': deviceId }, body: sample })
        expect(posted.status).toBe(201)
        t.clock.advance(3_600_000)
      }
      await runRollup(t.modules.metricsJobs)
      const mine = () => events.filter((e) => e.type === 'alert.firing' && e.data.alert.rule.id === rule.body.id).map((e) => e.data.alert)
      expect(mine()).toEqual([])
      await t.modules.alertsTick()
      expect(mine()).toHaveLength(1)
      expect(mine()[0]).toMatchObject({ device: { id: deviceId, name: 'nas-1' }, state: 'firing', threshold: 48 })
      expect(mine()[0].value).toBeLessThanOrEqual(48)
      expect(mine()[0].context.slope_percent_per_hour).toBeCloseTo(5, 1)
      expect(sent.filter((s) => s.channels.includes(pager)).map((s) => s.n.event)).toEqual(['firing'])
      // the next forecasts keep it firing, without a second notice
      t.clock.advance(15 * 60_000)
      await t.modules.alertsTick()
      expect(mine()).toHaveLength(1)
      expect(sent.filter((s) => s.channels.includes(pager))).toHaveLength(1)
    })

    test.skipIf(engine.skip)(`the default rules exist for a new account and fire on a full partition${on}`, async () => {
      const { t, sent, events } = await setup(engine)
      const tenant = await createTenant(t)
      const deviceId = await alertDevice(t, tenant.clientId)
      const sample = hardwareSample(0)
      sample.disk_partitions[1]!.percent = 97
      sample.disk_partitions.push({
        device: '/dev/loop3',
        mountpoint: '/snap/core/1',
        fstype: 'squashfs',
        total_gb: 0.1,
        used_gb: 0.1,
        free_gb: 0,
        percent: 100,
      })
      await t.request('POST', '/v1/metrics/hardware', { headers: { ...tenant.keyHeaders, 'x-device-id': deviceId }, body: sample })
      const firing = events.filter((e) => e.type === 'alert.firing').map((e) => e.data.alert)
      expect(firing.map((a) => [a.rule.name, a.series])).toEqual([['Disk almost full', '/boot/firmware']])
      expect(sent).toHaveLength(0) // defaults route nowhere until channels are chosen
      const rules = await t.request('GET', '/v1/alerts/rules', { headers: tenant.userHeaders })
      expect(rules.body.items.map((r: { builtin: string }) => r.builtin)).toEqual([
        'offline',
        'disk_90',
        'disk_forecast',
        'memory_95',
        'cpu_temp',
        ...CONTAINER_DEFAULT_RULES.map((r) => r.key),
      ])
    })
  })
}
