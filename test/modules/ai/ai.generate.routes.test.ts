import { afterAll, describe, expect, test } from 'bun:test'
import { addMember, createTenant } from '../../helpers/fixtures'
import { aiTestApp } from '../../helpers/ai'
import { insertDevice } from '../../helpers/devices'
import { fakeLlm, type Wire } from '../../helpers/fake-llm'
import { publicRoute } from '../../helpers/outbound'
import { hourly, seededSource, summaryOf } from '../../helpers/metrics-source'
import { runDueGenerations } from '../../../src/modules/ai/ai.jobs'

const KEY = 'sk-tenant-secret-key-wxyz'
const servers: ReturnType<typeof fakeLlm>[] = []
afterAll(() => {
  for (const s of servers) s.stop()
})
function server(wire: Wire) {
  const s = fakeLlm(wire)
  servers.push(s)
  return s
}

const UNHEALTHY = seededSource(summaryOf({ cpu_percent: { avg: 93, p95: 99 }, ram_percent: 50 }), {
  disk_used_percent: hourly(168, (i) => 70 + (i * 14) / 167),
})
const HEALTHY = seededSource(summaryOf({ cpu_percent: 20, ram_percent: 50 }))

/** The fake servers listen on loopback, which tenants may not reach: they are called under a public name. */
const route = publicRoute()

async function setup(opts: Parameters<typeof aiTestApp>[0] = {}) {
  const t = aiTestApp({ metricsSource: UNHEALTHY, resolve: route.resolve, fetch: route.fetch, ...opts })
  const a = await createTenant(t)
  const device = insertDevice(t, a.clientId, { hostname: 'db-7' })
  return { t, a, device }
}

/** Access tokens live 15 minutes: after moving the clock, sign a new one. */
async function freshHeaders(t: Awaited<ReturnType<typeof setup>>['t'], a: { userId: string; clientId: string }) {
  return { authorization: `Bearer ${await t.modules.users.tokens.sign({ userId: a.userId, clientId: a.clientId, role: 'user' })}` }
}

async function useProvider(t: Awaited<ReturnType<typeof setup>>['t'], headers: Record<string, string>, wire: Wire, baseUrl: string) {
  const res = await t.request('PATCH', '/v1/ai/config', {
    headers,
    body: { provider: wire, base_url: route.publicUrl(baseUrl), api_key: KEY, model: 'test-model' },
  })
  expect(res.status).toBe(200)
}

describe('POST /v1/ai/generate/{device_id}', () => {
  test('rules provider: stores findings with evidence, then deduplicates for 24 h', async () => {
    const { t, a, device } = await setup()
    const res = await t.request('POST', `/v1/ai/generate/${device}`, { headers: a.userHeaders })
    expect(res.status).toBe(200)
    expect(res.body.llm).toBeNull()
    expect(res.body.items.map((r: any) => [r.category, r.source])).toEqual([
      ['disk', 'rules'],
      ['cpu', 'rules'],
    ])
    expect(res.body.items[0]).toMatchObject({ device_id: device, client_id: a.clientId, severity: 'warning', evidence: { days_until_full: 8 } })
    const again = await t.request('POST', `/v1/ai/generate/${device}`, { headers: a.userHeaders })
    expect(again.body).toMatchObject({ items: [], skipped_duplicates: 2 })
    t.clock.advance(24 * 3600_000 + 1)
    const headers = await freshHeaders(t, a)
    // a day later the disk and CPU findings are due again, and the device has gone silent
    const later = await t.request('POST', `/v1/ai/generate/${device}`, { headers })
    expect(later.body.items.map((r: any) => r.category)).toEqual(['availability', 'disk', 'cpu'])
    const list = await t.request('GET', `/v1/recommendations/${device}`, { headers })
    expect(list.body.total).toBe(5)
  })

  test('a healthy device gets nothing', async () => {
    const { t, a, device } = await setup({ metricsSource: HEALTHY })
    const res = await t.request('POST', `/v1/ai/generate/${device}`, { headers: a.userHeaders })
    expect(res.body).toMatchObject({ items: [], skipped_duplicates: 0 })
  })

  for (const wire of ['openai', 'ollama', 'anthropic'] as Wire[]) {
    test(`${wire}: the model's items are stored next to the rules', and the call is logged`, async () => {
      const fake = server(wire)
      const { t, a, device } = await setup()
      await useProvider(t, a.userHeaders, wire, fake.baseUrl)
      const res = await t.request('POST', `/v1/ai/generate/${device}`, { headers: a.userHeaders })
      expect(res.status).toBe(200)
      expect(res.body.llm).toEqual({ provider: wire, model: 'test-model', status: 'ok', error: null })
      expect(res.body.items.map((r: any) => r.source)).toEqual(['rules', 'rules', wire, wire])
      expect(res.body.items[2]).toMatchObject({ category: 'disk', severity: 'warning', recommendation: 'Rotate and compress /var/log: it grows 2 GB a day.' })
      // the model saw the aggregated summary only
      const sent = JSON.stringify(fake.requests.at(-1)!.body)
      expect(sent).toContain('db-7')
      expect(sent).toContain('cpu_percent')
      expect(sent).not.toContain(device)
      expect(sent).not.toContain(KEY)
      const usage = await t.request('GET', '/v1/ai/usage', { headers: a.userHeaders })
      expect(usage.body.items[0]).toMatchObject({
        kind: 'generate',
        provider: wire,
        model: 'test-model',
        device_id: device,
        tokens_in: 321,
        tokens_out: 45,
        status: 'ok',
        error: null,
      })
      // same answer next time: deduplicated
      const again = await t.request('POST', `/v1/ai/generate/${device}`, { headers: a.userHeaders })
      expect(again.body).toMatchObject({ items: [], skipped_duplicates: 4 })
    })
  }

  test('a custom prompt template is what the model receives', async () => {
    const fake = server('openai')
    const { t, a, device } = await setup()
    await useProvider(t, a.userHeaders, 'openai', fake.baseUrl)
    await t.request('PATCH', '/v1/ai/prompt', { headers: a.userHeaders, body: { prompt: 'CUSTOM for {{hostname}} ({{os}}) over {{hours}}h: {{summary}}' } })
    await t.request('POST', `/v1/ai/generate/${device}`, { headers: a.userHeaders })
    const user = fake.requests.at(-1)!.body.messages[1].content as string
    expect(user).toStartWith('CUSTOM for db-7 (linux 6.8) over 24h: {"hours":24')
  })

  test('the model is told the hours the samples cover, and is not asked at all about too little data', async () => {
    const fake = server('openai')
    // three hours of samples in the 24 asked for
    const three = summaryOf({ cpu_percent: 50 }, {}, { samples: 1080 })
    three.hardware.first_at = new Date(Date.parse(three.to) - 3 * 3600_000).toISOString()
    const { t, a, device } = await setup({ metricsSource: seededSource(three) })
    await useProvider(t, a.userHeaders, 'openai', fake.baseUrl)
    const res = await t.request('POST', `/v1/ai/generate/${device}`, { headers: a.userHeaders })
    expect(res.body.llm).toMatchObject({ status: 'ok' })
    const user = fake.requests.at(-1)!.body.messages[1].content as string
    expect(user).toContain('over the 3 hours its samples cover')
    expect(res.body.items.find((r: any) => r.source === 'openai').evidence).toMatchObject({ window_hours: 24, covered_hours: 3, to: three.to })

    // 90 seconds of samples: no call, no finding
    const thin = summaryOf({ cpu_percent: 99 }, {}, { samples: 9 })
    thin.hardware.first_at = new Date(Date.parse(thin.to) - 90_000).toISOString()
    const other = await setup({ metricsSource: seededSource(thin) })
    await useProvider(other.t, other.a.userHeaders, 'openai', fake.baseUrl)
    const calls = fake.requests.length
    const none = await other.t.request('POST', `/v1/ai/generate/${other.device}`, { headers: other.a.userHeaders })
    expect(none.body).toMatchObject({ items: [], llm: null })
    expect(fake.requests.length).toBe(calls)
  })

  test('invalid model output is logged as a failed call and nothing of it is stored', async () => {
    const fake = server('ollama')
    const { t, a, device } = await setup()
    await useProvider(t, a.userHeaders, 'ollama', fake.baseUrl)
    fake.state.content = 'Sure! You should add more RAM and clean the disk.'
    const res = await t.request('POST', `/v1/ai/generate/${device}`, { headers: a.userHeaders })
    expect(res.status).toBe(200)
    expect(res.body.llm).toMatchObject({ status: 'invalid_output' })
    expect(res.body.items.every((r: any) => r.source === 'rules')).toBe(true)
    const usage = await t.request('GET', '/v1/ai/usage', { headers: a.userHeaders })
    expect(usage.body.items[0]).toMatchObject({ status: 'invalid_output', tokens_in: 321, tokens_out: 45 }) // spent all the same
    expect(usage.body.totals).toMatchObject({ calls: 1, ok: 0, failed: 1 })
  })

  test('a provider error that echoes the key never shows it in usage, responses or logs', async () => {
    const fake = server('openai')
    const { t, a, device } = await setup()
    await useProvider(t, a.userHeaders, 'openai', fake.baseUrl)
    fake.state.mode = 'error'
    fake.state.errorMessage = `Incorrect API key provided: ${KEY}`
    const res = await t.request('POST', `/v1/ai/generate/${device}`, { headers: a.userHeaders })
    expect(res.body.llm).toMatchObject({ status: 'provider_error', error: 'the provider answered HTTP 401' })
    expect(t.logs.join('\n')).toContain('Incorrect API key provided: [redacted]') // the operator's log has the words, scrubbed
    const usage = await t.request('GET', '/v1/ai/usage', { headers: a.userHeaders })
    const test_ = await t.request('POST', '/v1/ai/test', { headers: a.userHeaders })
    for (const text of [res.text, usage.text, test_.text, t.logs.join('\n')]) expect(text).not.toContain(KEY)
    expect(fake.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`) // it was sent, to the provider only
  })

  test('an oversized or late answer is a failed call, with the rules still stored', async () => {
    const fake = server('openai')
    const { t, a, device } = await setup()
    await useProvider(t, a.userHeaders, 'openai', fake.baseUrl)
    fake.state.mode = 'oversized'
    const res = await t.request('POST', `/v1/ai/generate/${device}`, { headers: a.userHeaders })
    expect(res.status).toBe(200)
    expect(res.body.llm).toMatchObject({ status: 'too_large' })
    expect(res.body.items.map((r: any) => r.source)).toEqual(['rules', 'rules'])
    const usage = await t.request('GET', '/v1/ai/usage', { headers: a.userHeaders })
    expect(usage.body.items[0]).toMatchObject({ status: 'too_large', tokens_in: null })
  })

  test('no metrics: rules only, no model call spent', async () => {
    const fake = server('openai')
    const { t, a, device } = await setup({ metricsSource: seededSource(null) })
    await useProvider(t, a.userHeaders, 'openai', fake.baseUrl)
    const res = await t.request('POST', `/v1/ai/generate/${device}`, { headers: a.userHeaders })
    expect(res.body).toMatchObject({ items: [], llm: null })
    expect(fake.requests).toHaveLength(0)
  })

  test("another client's device is 404; members may not generate; API keys are refused", async () => {
    const { t, a, device } = await setup()
    const b = await createTenant(t)
    const member = await addMember(t, a.clientId, 'member')
    expect((await t.request('POST', `/v1/ai/generate/${device}`, { headers: b.userHeaders })).status).toBe(404)
    expect((await t.request('POST', `/v1/ai/generate/${device}`, { headers: member.headers })).status).toBe(403)
    expect((await t.request('POST', `/v1/ai/generate/${device}`, { headers: a.keyHeaders })).status).toBe(401)
    expect((await t.request('POST', '/v1/ai/generate/dev_missing', { headers: a.userHeaders })).status).toBe(404)
  })
})

describe('POST /v1/ai/test', () => {
  test('rules: ok without any call', async () => {
    const { t, a } = await setup()
    const res = await t.request('POST', '/v1/ai/test', { headers: a.userHeaders })
    expect(res.body).toEqual({ ok: true, provider: 'rules', model: null, latency_ms: 0, error: null })
  })

  test('ok, provider error as a status (never its words), timeout as an unreachable provider', async () => {
    const fake = server('anthropic')
    const { t, a } = await setup()
    await useProvider(t, a.userHeaders, 'anthropic', fake.baseUrl)
    const ok = await t.request('POST', '/v1/ai/test', { headers: a.userHeaders })
    expect(ok.status).toBe(200)
    expect(ok.body).toMatchObject({ ok: true, provider: 'anthropic', model: 'test-model', error: null })
    expect(fake.requests.at(-1)!.body.max_tokens).toBe(16)
    fake.state.mode = 'error'
    fake.state.errorMessage = 'model: not_found'
    const err = await t.request('POST', '/v1/ai/test', { headers: a.userHeaders })
    expect(err.body).toMatchObject({ ok: false, error: 'the provider answered HTTP 400' })
    expect(err.text).not.toContain('not_found')
    fake.state.mode = 'hang'
    const slow = await t.request('POST', '/v1/ai/test', { headers: a.userHeaders })
    expect(slow.body).toMatchObject({ ok: false, error: 'could not reach the provider (the connection failed or no answer came within 200 ms)' })
    const usage = await t.request('GET', '/v1/ai/usage', { headers: a.userHeaders })
    expect(usage.body.items.map((u: any) => u.status)).toEqual(['network_error', 'provider_error', 'ok'])
    expect(usage.text).not.toContain('not_found')
  })
})

describe('daily budget', () => {
  test('calls beyond the budget are 429 budget_exceeded until the next UTC day', async () => {
    const fake = server('openai')
    const { t, a, device } = await setup({ ai: { dailyBudget: 2 } })
    await useProvider(t, a.userHeaders, 'openai', fake.baseUrl)
    t.clock.set(Date.parse('2026-01-01T22:00:00Z'))
    let headers = await freshHeaders(t, a)
    t.db.sqlite.run('UPDATE devices SET last_seen_at = ?', [t.clock.now()])
    expect((await t.request('POST', '/v1/ai/test', { headers })).body.ok).toBe(true)
    expect((await t.request('POST', `/v1/ai/generate/${device}`, { headers })).status).toBe(200)
    const before = fake.requests.length
    const stored = t.db.sqlite.query('SELECT COUNT(*) AS n FROM recommendations').get()
    const spent = await t.request('POST', '/v1/ai/test', { headers })
    expect(spent.status).toBe(429)
    expect(spent.body.error.code).toBe('budget_exceeded')
    expect(spent.headers.get('retry-after')).toBe(String(2 * 3600))
    t.clock.advance(3600_000) // 23:00, same UTC day
    headers = await freshHeaders(t, a)
    const gen = await t.request('POST', `/v1/ai/generate/${device}`, { headers })
    expect(gen.status).toBe(429)
    expect(gen.headers.get('retry-after')).toBe(String(3600))
    expect(fake.requests.length).toBe(before)
    expect(t.db.sqlite.query('SELECT COUNT(*) AS n FROM recommendations').get()).toEqual(stored) // 429 means nothing happened
    const usage = await t.request('GET', '/v1/ai/usage', { headers })
    expect(usage.body.today).toEqual({ calls: 2, budget: 2, remaining: 0 })
    t.clock.set(Date.parse('2026-01-02T00:00:00Z'))
    headers = await freshHeaders(t, a)
    expect((await t.request('POST', '/v1/ai/test', { headers })).status).toBe(200)
  })

  test('budgets are per client', async () => {
    const fake = server('openai')
    const { t, a } = await setup({ ai: { dailyBudget: 1 } })
    const b = await createTenant(t)
    await useProvider(t, a.userHeaders, 'openai', fake.baseUrl)
    await useProvider(t, b.userHeaders, 'openai', fake.baseUrl)
    expect((await t.request('POST', '/v1/ai/test', { headers: a.userHeaders })).status).toBe(200)
    expect((await t.request('POST', '/v1/ai/test', { headers: a.userHeaders })).status).toBe(429)
    expect((await t.request('POST', '/v1/ai/test', { headers: b.userHeaders })).status).toBe(200)
  })
})

describe('GET /v1/ai/usage', () => {
  test('paginates newest first with totals; tenants see only their own; bounds 422', async () => {
    const fake = server('openai')
    const { t, a } = await setup()
    const b = await createTenant(t)
    await useProvider(t, a.userHeaders, 'openai', fake.baseUrl)
    for (let i = 0; i < 3; i++) {
      await t.request('POST', '/v1/ai/test', { headers: a.userHeaders })
      t.clock.advance(1000)
    }
    const member = await addMember(t, a.clientId, 'member')
    const res = await t.request('GET', '/v1/ai/usage?limit=2&offset=1', { headers: member.headers })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ limit: 2, offset: 1, total: 3, totals: { calls: 3, ok: 3, failed: 0, tokens_in: 963, tokens_out: 135 } })
    expect(res.body.items).toHaveLength(2)
    expect(res.body.items[0].created_at).toBe('2026-01-01T00:00:01.000Z')
    expect((await t.request('GET', '/v1/ai/usage', { headers: b.userHeaders })).body.total).toBe(0)
    for (const q of ['limit=0', 'limit=101', 'offset=-1']) expect((await t.request('GET', `/v1/ai/usage?${q}`, { headers: a.userHeaders })).status).toBe(422)
    expect((await t.request('GET', '/v1/ai/usage')).status).toBe(401)
  })
})

describe('scheduled generation', () => {
  test('runs per client on its schedule, skips disabled clients, registers a job', async () => {
    const { t, a, device } = await setup()
    expect(t.jobs.map((j) => j.name)).toContain('ai.recommendations')
    const b = await createTenant(t)
    insertDevice(t, b.clientId)
    await t.request('PATCH', '/v1/ai/config', { headers: b.userHeaders, body: { enabled: false } })
    const deps = t.modules.ai
    expect(await runDueGenerations(deps)).toEqual({ clients: 1, devices: 1 })
    expect(t.db.sqlite.query('SELECT COUNT(*) AS n FROM recommendations WHERE client_id = ?').get(a.clientId)).toEqual({ n: 2 })
    t.clock.advance(30 * 60_000) // 00:30: not due yet
    expect(await runDueGenerations(deps)).toEqual({ clients: 0, devices: 0 })
    t.clock.advance(30 * 60_000) // 01:00: due; disk and CPU are deduplicated, only the new silence is stored
    expect(await runDueGenerations(deps)).toEqual({ clients: 1, devices: 1 })
    expect(t.db.sqlite.query('SELECT category FROM recommendations WHERE client_id = ? ORDER BY created_at, id').all(a.clientId)).toEqual([
      { category: 'disk' },
      { category: 'cpu' },
      { category: 'availability' },
    ])
    expect(t.db.sqlite.query('SELECT COUNT(*) AS n FROM recommendations WHERE client_id = ?').get(b.clientId)).toEqual({ n: 0 })
    void device
  })

  test('a pass gives the event loop a turn before each device it generates for', async () => {
    const { t, a } = await setup()
    insertDevice(t, a.clientId, { hostname: 'db-8' })
    insertDevice(t, a.clientId, { hostname: 'db-9' })
    const steps: string[] = []
    const stored = t.modules.ai.findings.store
    const store = (...args: Parameters<typeof stored>) => {
      steps.push('device')
      return stored(...args)
    }
    const deps = { ...t.modules.ai, findings: { store } }
    expect(await runDueGenerations(deps, async () => void steps.push('pause'))).toEqual({ clients: 1, devices: 3 })
    expect(steps).toEqual(['pause', 'device', 'pause', 'device', 'pause', 'device'])
  })

  test('when the budget is spent the schedule still runs the rules', async () => {
    const fake = server('openai')
    const { t, a } = await setup({ ai: { dailyBudget: 0 } })
    await useProvider(t, a.userHeaders, 'openai', fake.baseUrl)
    expect(await runDueGenerations(t.modules.ai)).toEqual({ clients: 1, devices: 1 })
    expect(fake.requests).toHaveLength(0)
    expect(t.db.sqlite.query("SELECT COUNT(*) AS n FROM recommendations WHERE source = 'rules'").get()).toEqual({ n: 2 })
  })
})
