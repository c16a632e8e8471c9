import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { manualClock } from '../../../src/lib/clock'
import { enqueueNotification } from '../../../src/modules/channels/channels.delivery'
import { pgTestAppLifecycle } from '../../helpers/app.pg'
import { FIRING } from '../../helpers/channels'
import { fakeNotifyService, type FakeNotifyService } from '../../helpers/fake-notify'
import { createTenant } from '../../helpers/fixtures'
import { manualTimers } from '../../helpers/timers'

/**
 * The channel routes and worker of a hub on PostgreSQL: CRUD with the secrets sealed in the
 * rows, a test notice and an alert notice to a local service, the delivery log, another tenant's
 * channel 404.
 */
const pgApp = pgTestAppLifecycle()
let fake: FakeNotifyService
beforeAll(() => {
  fake = fakeNotifyService()
})
afterAll(() => fake.stop())

const TOKEN = 'tk_0123456789abcdefSECRET'

async function setup() {
  const timers = manualTimers()
  const t = await pgApp.make({ clock: manualClock(Date.now()), timers: timers.timers, config: { outbound: { allowPrivate: false, allowLocal: true } } })
  /** a tenant; its client row also in PostgreSQL, where the identity stores do not write in this build */
  const tenant = async () => {
    const made = await createTenant(t)
    await t.sql`INSERT INTO clients (id, name, created_at, updated_at) VALUES (${made.clientId}, 'tenant', 0, 0) ON CONFLICT DO NOTHING`
    return made
  }
  return { t, tenant }
}

describe('channels on PostgreSQL', () => {
  test.skipIf(pgApp.skip)(`create, read, list, change, delete; secrets sealed at rest and masked; another tenant's is 404 ${pgApp.skipReason}`, async () => {
    const { t, tenant } = await setup()
    const a = await tenant()
    const b = await tenant()
    const made = await t.request('POST', '/v1/channels', {
      headers: a.userHeaders,
      body: { name: 'Ops ntfy', kind: 'ntfy', config: { server: `http://127.0.0.1:${fake.port}`, topic: 'ops', token: TOKEN }, min_severity: 'warning' },
    })
    expect(made.status).toBe(201)
    expect(made.body).toMatchObject({ name: 'Ops ntfy', kind: 'ntfy', enabled: true, min_severity: 'warning', config: { topic: 'ops' } })
    expect(made.body.secrets.token).toEndWith('CRET')
    expect(JSON.stringify(made.body)).not.toContain(TOKEN)
    const id = made.body.id
    const [row] = await t.sql`SELECT config, secrets_enc, enabled FROM channels WHERE id = ${id}`
    expect(JSON.stringify(row)).not.toContain(TOKEN)
    expect(row.enabled).toBe(true)
    expect((await t.request('GET', `/v1/channels/${id}`, { headers: a.userHeaders })).body).toEqual(made.body)
    expect((await t.request('GET', '/v1/channels', { headers: a.userHeaders })).body.items).toEqual([made.body])
    const changed = await t.request('PATCH', `/v1/channels/${id}`, { headers: a.userHeaders, body: { name: 'Renamed', enabled: false } })
    expect(changed.body).toMatchObject({ name: 'Renamed', enabled: false, secrets: made.body.secrets })
    for (const [method, path] of [
      ['GET', `/v1/channels/${id}`],
      ['PATCH', `/v1/channels/${id}`],
      ['DELETE', `/v1/channels/${id}`],
      ['POST', `/v1/channels/${id}/test`],
      ['GET', `/v1/channels/${id}/deliveries`],
    ] as const) {
      const res = await t.request(method, path, { headers: b.userHeaders, body: method === 'PATCH' ? { name: 'stolen' } : undefined })
      expect([method, path, res.status]).toEqual([method, path, 404])
    }
    expect((await t.request('GET', '/v1/channels', { headers: b.userHeaders })).body.items).toEqual([])
    expect((await t.request('POST', '/v1/channels', { headers: a.userHeaders, body: { name: 'x', kind: 'nope', config: {} } })).status).toBe(422)
    expect((await t.request('DELETE', `/v1/channels/${id}`, { headers: a.userHeaders })).status).toBe(204)
    expect((await t.request('GET', `/v1/channels/${id}`, { headers: a.userHeaders })).status).toBe(404)
  })

  test.skipIf(pgApp.skip)(`a test notice and an alert notice go out, each logged with its attempt ${pgApp.skipReason}`, async () => {
    const { t, tenant } = await setup()
    const a = await tenant()
    const made = await t.request('POST', '/v1/channels', {
      headers: a.userHeaders,
      body: { name: 'hook', kind: 'webhook', config: { url: `http://127.0.0.1:${fake.port}/pg-hook` } },
    })
    fake.received.length = 0
    const sent = await t.request('POST', `/v1/channels/${made.body.id}/test`, { headers: a.userHeaders })
    expect(sent.status).toBe(200)
    expect(sent.body).toMatchObject({ ok: true, http_status: 200, outcome: 'ok' })
    expect(fake.received.map((r) => r.path)).toEqual(['/pg-hook'])
    // an alert's notice: queued in PostgreSQL, claimed and sent by the worker
    await t.modules.channelsWorker.start()
    t.clock.advance(1000)
    const [queued] = await enqueueNotification(t.modules.channels, a.clientId, [made.body.id], FIRING)
    await t.modules.channelsWorker.idle()
    await t.modules.channelsWorker.stop()
    expect(fake.received.map((r) => r.path)).toEqual(['/pg-hook', '/pg-hook'])
    const log = await t.request('GET', `/v1/channels/${made.body.id}/deliveries`, { headers: a.userHeaders })
    expect(log.body.total).toBe(2)
    expect(
      log.body.items.map((d: { id: string; event: string; status: string; attempts: unknown[] }) => [d.id === queued, d.event, d.status, d.attempts.length]),
    ).toEqual([
      [true, 'firing', 'delivered', 1],
      [false, 'test', 'delivered', 1],
    ])
  })
})
