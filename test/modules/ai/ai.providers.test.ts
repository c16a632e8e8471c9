import { afterAll, describe, expect, test } from 'bun:test'
import { chat, type Connection } from '../../../src/modules/ai/ai.providers'
import { ProviderCallError } from '../../../src/modules/ai/ai.http'
import { systemResolver } from '../../../src/lib/outbound/outbound.fetch'
import { TENANT_POLICY } from '../../../src/lib/outbound/outbound.policy'
import { fakeLlm, GOOD_ANSWER, type Wire } from '../../helpers/fake-llm'

const servers: ReturnType<typeof fakeLlm>[] = []
afterAll(() => {
  for (const s of servers) s.stop()
})

/** The fakes listen on loopback: the policy of the instance's own configuration, which may reach it. */
const deps = { fetch, resolve: systemResolver, selfAddresses: () => new Set<string>(), policy: { allowPrivate: true, allowLocal: true }, timeoutMs: 200 }
const req = { system: 'sys', user: 'usr', temperature: 0.5, maxTokens: 300 }

async function failure(p: Promise<unknown>): Promise<ProviderCallError> {
  try {
    await p
  } catch (err) {
    expect(err).toBeInstanceOf(ProviderCallError)
    return err as ProviderCallError
  }
  throw new Error('expected the call to fail')
}

for (const wire of ['openai', 'ollama', 'anthropic'] as Wire[]) {
  describe(`${wire} wire format`, () => {
    const fake = fakeLlm(wire)
    servers.push(fake)
    const conn: Connection = { provider: wire, baseUrl: fake.baseUrl, apiKey: 'sk-test-secret-1234', model: 'm-1' }

    test('success: text, model and token counts', async () => {
      fake.state.mode = 'ok'
      const r = await chat(deps, conn, req)
      expect(r).toEqual({ text: GOOD_ANSWER, model: 'm-1', tokensIn: 321, tokensOut: 45 })
      const sent = fake.requests.at(-1)!
      expect(sent.body.model).toBe('m-1')
      if (wire === 'openai') {
        expect(sent.path).toBe('/v1/chat/completions')
        expect(sent.headers.authorization).toBe('Bearer sk-test-secret-1234')
        expect(sent.body).toMatchObject({
          messages: [
            { role: 'system', content: 'sys' },
            { role: 'user', content: 'usr' },
          ],
          temperature: 0.5,
          max_tokens: 300,
        })
      } else if (wire === 'ollama') {
        expect(sent.path).toBe('/api/chat')
        expect(sent.body).toMatchObject({ stream: false, format: 'json', options: { temperature: 0.5, num_predict: 300 } })
      } else {
        expect(sent.path).toBe('/v1/messages')
        expect(sent.headers['x-api-key']).toBe('sk-test-secret-1234')
        expect(sent.headers['anthropic-version']).toBe('2023-06-01')
        expect(sent.headers.authorization).toBeUndefined()
        expect(sent.body).toMatchObject({ system: 'sys', messages: [{ role: 'user', content: 'usr' }], max_tokens: 300, temperature: 0.5 })
      }
    })

    test("provider error: the status for the caller, the provider's words for the log only", async () => {
      fake.state.mode = 'error'
      const err = await failure(chat(deps, conn, req))
      expect(err.status).toBe('provider_error')
      expect(err.message).toMatch(/^the provider answered HTTP (401|404|400)$/)
      expect(err.detail).toContain('Incorrect API key provided')
    })

    test('timeout: the same failure as an unreachable server', async () => {
      fake.state.mode = 'hang'
      const err = await failure(chat(deps, conn, req))
      expect(err.status).toBe('network_error')
      expect(err.message).toBe('could not reach the provider (the connection failed or no answer came within 200 ms)')
      expect(err.detail).toBe('timeout')
    })

    test('malformed answer (JSON of the wrong shape, or not JSON)', async () => {
      fake.state.mode = 'malformed'
      expect((await failure(chat(deps, conn, req))).status).toBe('invalid_output')
      fake.state.mode = 'garbage'
      expect((await failure(chat(deps, conn, req))).status).toBe('invalid_output')
    })

    test('oversized answer is cut off at the cap', async () => {
      fake.state.mode = 'oversized'
      const err = await failure(chat(deps, conn, req))
      expect(err.status).toBe('too_large')
    })

    test('redirects are not followed', async () => {
      fake.state.mode = 'redirect'
      const err = await failure(chat(deps, conn, req))
      expect(err.status).toBe('provider_error')
      expect(err.message).toContain('redirect')
    })
  })
}

test('the call-time check refuses a name that resolves to a metadata address', async () => {
  const lookup = async () => ['10.0.0.5', '169.254.169.254']
  const conn: Connection = { provider: 'openai', baseUrl: 'http://llm.example.test/v1', apiKey: null, model: 'm' }
  let called = false
  const spy = (async () => {
    called = true
    return new Response('{}')
  }) as unknown as typeof fetch
  const err = await failure(chat({ ...deps, fetch: spy, resolve: lookup }, conn, req))
  expect(err.status).toBe('refused')
  expect(err.message).toBe('llm.example.test resolves to an address this server may not call')
  expect(called).toBe(false)
})

test('a closed port, a silent one and a refused address: nothing tells them apart but refusal', async () => {
  const silent = fakeLlm('openai')
  servers.push(silent)
  silent.state.mode = 'hang'
  const closed = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
  const closedUrl = `http://127.0.0.1:${closed.port}/v1`
  closed.stop(true)
  const at = (baseUrl: string): Connection => ({ provider: 'openai', baseUrl, apiKey: null, model: 'm' })
  const a = await failure(chat(deps, at(closedUrl), req))
  const b = await failure(chat(deps, at(silent.baseUrl), req))
  expect([a.status, a.message]).toEqual([b.status, b.message])
  expect(a.detail).not.toBe(b.detail) // the log still tells the operator which
  // a tenant's policy refuses loopback before any connection, in words that say only that
  const c = await failure(chat({ ...deps, policy: TENANT_POLICY }, at(closedUrl), req))
  expect(c.status).toBe('refused')
  expect(c.message).toBe('base_url points at this server (a loopback address)')
})

test('anthropic without a key is refused before any call', async () => {
  const err = await failure(chat(deps, { provider: 'anthropic', baseUrl: 'http://127.0.0.1:9', apiKey: null, model: 'm' }, req))
  expect(err.message).toContain('api_key')
})
