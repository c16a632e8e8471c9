import type { Config } from '../../src/config'
import { manualClock } from '../../src/lib/clock'
import { testApp } from './app'
import { createTenant } from './fixtures'
import { manualTimers } from './timers'

/**
 * An app whose webhook worker runs, for receivers on 127.0.0.1: loopback allowed as an
 * operator would with VIGIL_OUTBOUND_ALLOW_LOCAL, a clock at the real time (receivers check
 * webhook-timestamp against theirs) that only moves when the test moves it, and timers that
 * fire only when the test says so.
 */
export function webhookApp(outbound: Config['outbound'] = { allowPrivate: false, allowLocal: true }) {
  const timers = manualTimers()
  const t = testApp({ clock: manualClock(Date.now()), timers: timers.timers, config: { outbound } })
  t.modules.webhookWorker.start()
  /** lets time pass: the clock moves, the due timers fire, and the sends they start finish */
  async function pass(ms: number) {
    t.clock.advance(ms)
    timers.fire()
    await t.modules.webhookWorker.idle()
  }
  return { ...t, timers, pass, settle: () => t.modules.webhookWorker.idle(), stop: () => t.modules.webhookWorker.stop() }
}

export type WebhookApp = ReturnType<typeof webhookApp>

/** A tenant with one endpoint at `url` subscribed to `types`; the secret as shown once. */
export async function tenantWithEndpoint(t: WebhookApp, url: string, types: string[] = ['device.registered']) {
  const tenant = await createTenant(t)
  const res = await t.request('POST', '/v1/webhooks/endpoints', { headers: tenant.userHeaders, body: { url, event_types: types } })
  if (res.status !== 201) throw new Error(`endpoint: ${res.status} ${res.text}`)
  return { tenant, endpoint: res.body as { id: string; secret: string } }
}
