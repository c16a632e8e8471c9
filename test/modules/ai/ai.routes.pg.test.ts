import { describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { testConfig } from '../../../src/config'
import { openPostgres } from '../../../src/db/pg/connection'
import { runDueGenerations } from '../../../src/modules/ai/ai.jobs'
import { createAiStorePg } from '../../../src/modules/ai/ai.store.pg'
import type { AiDeps } from '../../../src/modules/ai/ai.service'
import { storeFindings } from '../../../src/modules/recommendations/recommendations.service'
import { createRecommendationsStorePg } from '../../../src/modules/recommendations/recommendations.store.pg'
import { pgTestAppLifecycle } from '../../helpers/app.pg'
import { createTenant } from '../../helpers/fixtures'
import { insertDeviceOn } from '../../helpers/devices'
import { DIRECTORY_TTL_MS } from '../../../src/modules/users/users.directory'
import { hourly, seededSource, summaryOf } from '../../helpers/metrics-source'

/** The AI settings, generations and usage on a hub whose AI and recommendation rows live in PostgreSQL. */
const pgApp = pgTestAppLifecycle()
const CLIENT_KEY = 'sk-client-secret-key-abcd'
const UNHEALTHY = seededSource(summaryOf({ cpu_percent: { avg: 93, p95: 99 }, ram_percent: 50 }), {
  disk_used_percent: hourly(168, (i) => 70 + (i * 14) / 167),
})

async function setup() {
  const t = await pgApp.make({ config: { ai: { ...testConfig().ai, timeoutMs: 200 } }, secretKey: new Uint8Array(randomBytes(32)), metricsSource: UNHEALTHY })
  const a = await createTenant(t, { role: 'admin' })
  // the hub's copy of which clients are an operator's (which may reach private addresses) reads the
  // fixture's operator once it is due again: in the background, as on a hub
  t.clock.advance(DIRECTORY_TTL_MS)
  while (!t.modules.directory.isOperatorClient(a.clientId)) await Bun.sleep(1)
  const b = await createTenant(t)
  const device = await insertDeviceOn(t, a.clientId, { hostname: 'db-7' })
  return { t, a, b, device }
}

describe('AI on PostgreSQL', () => {
  test.skipIf(pgApp.skip)(
    `a provider key is sealed at rest in PostgreSQL and only ever shown masked; settings are per client ${pgApp.skipReason}`,
    async () => {
      const { t, a, b } = await setup()
      const res = await t.request('PATCH', '/v1/ai/config', {
        headers: a.userHeaders,
        body: { provider: 'openai', base_url: 'http://192.168.1.20:1234/v1/', model: 'llama-3.1-8b', api_key: CLIENT_KEY, temperature: 0.7, enabled: false },
      })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ provider: 'openai', api_key: '••••abcd', api_key_set: true, temperature: 0.7, enabled: false })
      expect(res.text).not.toContain(CLIENT_KEY)
      const [row] = await t.sql`SELECT api_key_enc, enabled FROM ai_configs WHERE client_id = ${a.clientId}`
      expect(row.api_key_enc).toStartWith('v1.')
      expect(row.api_key_enc).not.toContain('abcd')
      expect(row.enabled).toBe(false)
      const again = await t.request('GET', '/v1/ai/config', { headers: a.userHeaders })
      expect(again.body).toMatchObject({ api_key: '••••abcd', enabled: false, base_url: 'http://192.168.1.20:1234/v1' })
      expect((await t.request('GET', '/v1/ai/config', { headers: b.userHeaders })).body).toMatchObject({ provider: 'rules', api_key_set: false, enabled: true })
      const prompt = await t.request('PATCH', '/v1/ai/prompt', { headers: a.userHeaders, body: { prompt: 'Host {{hostname}}: {{summary}}' } })
      expect(prompt.status).toBe(200)
      expect((await t.request('GET', '/v1/ai/config', { headers: a.userHeaders })).body).toMatchObject({ prompt_custom: true })
      expect((await t.request('PATCH', '/v1/ai/config', { headers: a.userHeaders, body: { schedule: 'often' } })).status).toBe(422)
      expect(t.logs.join('\n')).not.toContain(CLIENT_KEY)
    },
  )

  test.skipIf(pgApp.skip)(`a generation stores its findings in PostgreSQL once; the usage page reads there ${pgApp.skipReason}`, async () => {
    const { t, a, device } = await setup()
    const res = await t.request('POST', `/v1/ai/generate/${device}`, { headers: a.userHeaders })
    expect(res.status).toBe(200)
    expect(res.body.items.map((r: any) => r.category)).toEqual(['disk', 'cpu'])
    const again = await t.request('POST', `/v1/ai/generate/${device}`, { headers: a.userHeaders })
    expect(again.body).toMatchObject({ items: [], skipped_duplicates: 2 })
    const [{ n }] = await t.sql`SELECT count(*)::int AS n FROM recommendations WHERE client_id = ${a.clientId}`
    expect(n).toBe(2)
    const usage = await t.request('GET', '/v1/ai/usage', { headers: a.userHeaders })
    expect(usage.body).toMatchObject({ total: 0, today: { calls: 0, budget: 48 } })
  })

  test.skipIf(pgApp.skip)(`two hubs running the schedule at once generate for a client once ${pgApp.skipReason}`, async () => {
    const { t, a } = await setup()
    // the second hub: its own connections to the same database, its own stores
    const [{ db }] = await t.sql`SELECT current_database() AS db`
    const url = new URL(process.env.VIGIL_TEST_PG_URL!)
    url.pathname = `/${db}`
    const other = openPostgres({ url: url.toString(), pool: 2 })
    try {
      const hub1 = t.modules.ai
      const recommendations = { ...t.modules.recommendations, store: createRecommendationsStorePg(other) }
      const hub2: AiDeps = {
        ...hub1,
        store: createAiStorePg(other),
        findings: { store: (clientId, findings) => storeFindings(recommendations, clientId, findings) },
      }
      const runs = await Promise.all([runDueGenerations(hub1), runDueGenerations(hub2), runDueGenerations(hub1), runDueGenerations(hub2)])
      expect(runs.reduce((n, r) => n + r.clients, 0)).toBe(1)
      expect(runs.reduce((n, r) => n + r.devices, 0)).toBe(1)
      const rows = await t.sql`SELECT category FROM recommendations WHERE client_id = ${a.clientId} ORDER BY category`
      expect(rows.map((r: { category: string }) => r.category)).toEqual(['cpu', 'disk'])
    } finally {
      await other.close()
    }
  })
})
