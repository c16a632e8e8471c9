import { expect, test } from 'bun:test'
import { testApp } from '../../helpers/app'
import { createTenant } from '../../helpers/fixtures'

const BLANK = [' ', '     ', '\t\n', '\u00a0\u3000', ' '.repeat(100)]

test('an API key name of only spaces is 422 at body.name (it was stored empty after trimming); spaces around a name are trimmed', async () => {
  const t = testApp()
  const a = await createTenant(t)
  for (const name of BLANK) {
    const res = await t.request('POST', '/v1/auth/api-keys', { headers: a.userHeaders, body: { name } })
    expect({ name, status: res.status, loc: res.body.detail?.[0]?.loc }).toEqual({ name, status: 422, loc: ['body', 'name'] })
  }
  const ok = await t.request('POST', '/v1/auth/api-keys', { headers: a.userHeaders, body: { name: ' edge 1 ' } })
  expect(ok.status).toBe(201)
  expect(ok.body.name).toBe('edge 1')
})

test('a client name of only spaces is 422 at body.name; null still clears it', async () => {
  const t = testApp()
  const a = await createTenant(t)
  for (const name of BLANK) {
    const res = await t.request('PATCH', '/v1/clients/me', { headers: a.userHeaders, body: { name } })
    expect({ name, status: res.status, loc: res.body.detail?.[0]?.loc }).toEqual({ name, status: 422, loc: ['body', 'name'] })
  }
  expect((await t.request('PATCH', '/v1/clients/me', { headers: a.userHeaders, body: { name: 'Acme Ltd' } })).body.name).toBe('Acme Ltd')
  expect((await t.request('PATCH', '/v1/clients/me', { headers: a.userHeaders, body: { name: null } })).status).toBe(200)
})
