import { describe, expect, test } from 'bun:test'
import { addMember, createTenant } from '../../helpers/fixtures'
import { aiTestApp } from '../../helpers/ai'

const CLIENT_KEY = 'sk-client-secret-key-abcd'

describe('GET /v1/ai/providers', () => {
  test('is public and lists each provider with its fields and defaults', async () => {
    const t = aiTestApp()
    const res = await t.request('GET', '/v1/ai/providers')
    expect(res.status).toBe(200)
    expect(res.body.items.map((p: any) => p.id)).toEqual(['rules', 'openai', 'ollama', 'anthropic'])
    const ollama = res.body.items.find((p: any) => p.id === 'ollama')
    expect(ollama.fields.find((f: any) => f.name === 'base_url').default).toBe('http://localhost:11434')
    expect(res.body.instance_default).toBe('rules')
    expect(Object.keys(res.body.prompt_variables)).toEqual(['hostname', 'os', 'hours', 'summary'])
  })
})

describe('GET/PATCH /v1/ai/config', () => {
  test('defaults: the offline rules provider, enabled, hourly, default prompt', async () => {
    const t = aiTestApp()
    const a = await createTenant(t)
    const res = await t.request('GET', '/v1/ai/config', { headers: a.userHeaders })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      provider: 'rules',
      inherited: true,
      enabled: true,
      schedule: null,
      effective_schedule: '0 * * * *',
      prompt_custom: false,
      api_key: null,
      api_key_set: false,
      daily_budget: 48,
      temperature: 0.2,
      max_tokens: 1024,
    })
    expect(res.body.prompt).toContain('{{summary}}')
  })

  test("clients inherit the operator's provider, never seeing its key", async () => {
    const t = aiTestApp({ ai: { provider: 'openai', baseUrl: 'http://10.0.0.9:8000/v1', apiKey: 'sk-operator-key-9999', model: 'qwen' } })
    const a = await createTenant(t)
    const res = await t.request('GET', '/v1/ai/config', { headers: a.userHeaders })
    expect(res.body).toMatchObject({
      provider: 'openai',
      inherited: true,
      base_url: 'http://10.0.0.9:8000/v1',
      model: 'qwen',
      api_key: null,
      api_key_set: true,
    })
    expect(res.text).not.toContain('9999')
  })

  test('owner sets a provider; the key is encrypted at rest and only ever shown masked', async () => {
    const t = aiTestApp()
    const a = await createTenant(t, { role: 'admin' }) // the operator's client: its LAN is allowed
    const res = await t.request('PATCH', '/v1/ai/config', {
      headers: a.userHeaders,
      body: { provider: 'openai', base_url: 'http://192.168.1.20:1234/v1/', model: 'llama-3.1-8b', api_key: CLIENT_KEY, temperature: 0.7, max_tokens: 500 },
    })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      provider: 'openai',
      inherited: false,
      base_url: 'http://192.168.1.20:1234/v1',
      model: 'llama-3.1-8b',
      api_key: '••••abcd',
      api_key_set: true,
      temperature: 0.7,
      max_tokens: 500,
    })
    expect(res.text).not.toContain(CLIENT_KEY)
    const again = await t.request('GET', '/v1/ai/config', { headers: a.userHeaders })
    expect(again.body.api_key).toBe('••••abcd')
    expect(again.text).not.toContain(CLIENT_KEY)
    const row = t.db.sqlite.query<{ api_key_enc: string }, []>('SELECT api_key_enc FROM ai_configs').get()!
    expect(row.api_key_enc).toStartWith('v1.')
    expect(row.api_key_enc).not.toContain('abcd')
    expect(t.logs.join('\n')).not.toContain(CLIENT_KEY)
  })

  test('moving base_url or switching provider drops a stored key unless a new one comes along', async () => {
    const t = aiTestApp()
    const a = await createTenant(t, { role: 'admin' })
    await t.request('PATCH', '/v1/ai/config', {
      headers: a.userHeaders,
      body: { provider: 'ollama', base_url: 'http://192.168.1.20:11434', api_key: CLIENT_KEY },
    })
    const same = await t.request('PATCH', '/v1/ai/config', { headers: a.userHeaders, body: { model: 'mistral', base_url: 'http://192.168.1.20:11434' } })
    expect(same.body).toMatchObject({ model: 'mistral', api_key_set: true })
    const moved = await t.request('PATCH', '/v1/ai/config', { headers: a.userHeaders, body: { base_url: 'http://attacker.example:11434' } })
    expect(moved.body).toMatchObject({ api_key: null, api_key_set: false })
    await t.request('PATCH', '/v1/ai/config', { headers: a.userHeaders, body: { api_key: CLIENT_KEY } })
    const switched = await t.request('PATCH', '/v1/ai/config', { headers: a.userHeaders, body: { provider: 'anthropic' } })
    expect(switched.body).toMatchObject({ provider: 'anthropic', api_key_set: false, base_url: 'https://api.anthropic.com', model: 'claude-3-5-haiku-latest' })
    const back = await t.request('PATCH', '/v1/ai/config', { headers: a.userHeaders, body: { provider: null } })
    expect(back.body).toMatchObject({ provider: 'rules', inherited: true })
  })

  test('loopback, link-local and metadata base_urls are refused with 422 in every spelling, even for the operator', async () => {
    const t = aiTestApp()
    const a = await createTenant(t, { role: 'admin' })
    for (const base_url of [
      'http://169.254.169.254/latest',
      'http://2852039166/',
      'http://0xa9fea9fe/',
      'http://[::169.254.169.254]/',
      'http://[::ffff:169.254.169.254]/',
      'http://[64:ff9b::a9fe:a9fe]/',
      'http://[2002:a9fe:a9fe::1]/',
      'http://[fe80::1]:11434',
      'http://metadata.google.internal',
      'http://[fd00:ec2::254]/',
      'http://100.100.100.200/',
      'http://127.0.0.1:8080',
      'http://2130706433:8080',
      'http://0x7f000001/',
      'http://127.1/',
      'http://0177.0.0.1/',
      'http://[::1]:11434',
      'http://localhost:11434',
      'http://0.0.0.0:11434',
      'ftp://192.168.1.2/',
    ]) {
      const res = await t.request('PATCH', '/v1/ai/config', { headers: a.userHeaders, body: { provider: 'ollama', base_url } })
      expect(res.status).toBe(422)
      expect(res.body.error).toMatchObject({ code: 'unsafe_base_url', param: 'base_url' })
    }
    expect((await t.request('GET', '/v1/ai/config', { headers: a.userHeaders })).body.provider).toBe('rules')
  })

  test('bounds and unknown fields → 422; connection fields need an LLM provider → 400', async () => {
    const t = aiTestApp()
    const a = await createTenant(t)
    for (const body of [
      { temperature: 2.1 },
      { temperature: -0.1 },
      { max_tokens: 0 },
      { max_tokens: 8193 },
      { provider: 'gpt' },
      { enabled: 'yes' },
      { api_key: '' },
    ]) {
      const res = await t.request('PATCH', '/v1/ai/config', { headers: a.userHeaders, body })
      expect(res.status).toBe(422)
      expect(res.body.detail[0].loc[0]).toBe('body')
    }
    // the schema forbids unknown fields: refused by name, nothing stored
    const extra = await t.request('PATCH', '/v1/ai/config', { headers: a.userHeaders, body: { enabled: false, last_run_at: 0, client_id: 'cli_other' } })
    expect(extra.status).toBe(422)
    expect(extra.body.detail).toEqual([
      { loc: ['body', 'last_run_at'], msg: 'Unexpected property', type: 'extra_forbidden' },
      { loc: ['body', 'client_id'], msg: 'Unexpected property', type: 'extra_forbidden' },
    ])
    expect((await t.request('GET', '/v1/ai/config', { headers: a.userHeaders })).body.enabled).toBe(true)
    // a top-level array or string is not an object, whatever the fields
    for (const raw of ['[]', '[1,2]', '"x"', 'null', '5']) {
      const res = await t.request('PATCH', '/v1/ai/config', { headers: { ...a.userHeaders, 'content-type': 'application/json' }, raw })
      expect(res.status).toBe(422)
      expect(res.body.detail[0]).toMatchObject({ loc: ['body'], type: 'object_type' })
    }
    expect(t.db.sqlite.query('SELECT client_id FROM ai_configs').all()).toEqual([])
    const res = await t.request('PATCH', '/v1/ai/config', { headers: a.userHeaders, body: { model: 'x' } })
    expect(res.status).toBe(400)
    expect(res.body.error.param).toBe('model')
  })

  test('schedule: validated with croner, null restores the default', async () => {
    const t = aiTestApp()
    const a = await createTenant(t)
    const bad = await t.request('PATCH', '/v1/ai/config', { headers: a.userHeaders, body: { schedule: 'every hour' } })
    expect(bad.status).toBe(422)
    expect(bad.body.error).toMatchObject({ code: 'invalid_schedule', param: 'schedule' })
    const ok = await t.request('PATCH', '/v1/ai/config', { headers: a.userHeaders, body: { schedule: '*/15 * * * *', enabled: false } })
    expect(ok.body).toMatchObject({ schedule: '*/15 * * * *', effective_schedule: '*/15 * * * *', enabled: false })
    const reset = await t.request('PATCH', '/v1/ai/config', { headers: a.userHeaders, body: { schedule: null } })
    expect(reset.body).toMatchObject({ schedule: null, effective_schedule: '0 * * * *', enabled: false })
  })

  test('roles: members read, only owner/admin write; JWT only; tenants are separate', async () => {
    const t = aiTestApp()
    const a = await createTenant(t)
    const b = await createTenant(t)
    const member = await addMember(t, a.clientId, 'member')
    const admin = await addMember(t, a.clientId, 'admin')
    expect((await t.request('GET', '/v1/ai/config', { headers: member.headers })).status).toBe(200)
    for (const [method, path, body] of [
      ['PATCH', '/v1/ai/config', { enabled: false }],
      ['PATCH', '/v1/ai/prompt', { prompt: null }],
      ['POST', '/v1/ai/test', undefined],
    ] as const) {
      const res = await t.request(method, path, { headers: member.headers, body })
      expect(res.status).toBe(403)
      expect(res.body.error.code).toBe('forbidden')
      expect((await t.request(method, path, { body })).status).toBe(401)
      expect((await t.request(method, path, { headers: a.keyHeaders, body })).status).toBe(401)
    }
    expect((await t.request('PATCH', '/v1/ai/config', { headers: admin.headers, body: { enabled: false } })).body.enabled).toBe(false)
    expect((await t.request('GET', '/v1/ai/config', { headers: b.userHeaders })).body.enabled).toBe(true)
  })
})

describe('PATCH /v1/ai/prompt', () => {
  test('round trip: custom template, shown in the config, null restores the default', async () => {
    const t = aiTestApp()
    const a = await createTenant(t)
    const custom = 'Host {{hostname}} on {{ os }}, last {{hours}} h:\n{{summary}}\nFocus on disk usage.'
    const res = await t.request('PATCH', '/v1/ai/prompt', { headers: a.userHeaders, body: { prompt: custom } })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ prompt: custom, prompt_custom: true })
    expect(Object.keys(res.body.variables)).toContain('summary')
    expect((await t.request('GET', '/v1/ai/config', { headers: a.userHeaders })).body).toMatchObject({ prompt: custom, prompt_custom: true })
    const reset = await t.request('PATCH', '/v1/ai/prompt', { headers: a.userHeaders, body: { prompt: null } })
    expect(reset.body.prompt_custom).toBe(false)
    expect((await t.request('GET', '/v1/ai/config', { headers: a.userHeaders })).body.prompt).toBe(reset.body.prompt)
  })

  test('unknown variables → 422 naming the variable; bounds → 422', async () => {
    const t = aiTestApp()
    const a = await createTenant(t)
    const res = await t.request('PATCH', '/v1/ai/prompt', { headers: a.userHeaders, body: { prompt: 'Hi {{hostname}}, key {{api_key}}' } })
    expect(res.status).toBe(422)
    expect(res.body.error).toMatchObject({ code: 'invalid_prompt', param: 'api_key' })
    for (const body of [{ prompt: 'x'.repeat(8001) }, { prompt: '' }, {}]) {
      expect((await t.request('PATCH', '/v1/ai/prompt', { headers: a.userHeaders, body })).status).toBe(422)
    }
  })
})
