import { describe, expect, test } from 'bun:test'
import { testApp } from '../helpers/app'
import { addMember, createKey, createTenant } from '../helpers/fixtures'
import { manualTimers } from '../helpers/timers'

const limited = () => testApp({ config: { rateLimits: { free: 4, pro: 40, enterprise: 400, anonymous: 2 } } })

describe('rate limits belong to the client', () => {
  test('two keys and a user of one client share one budget; another client has its own', async () => {
    const t = limited()
    const a = await createTenant(t)
    const second = createKey(t, a.clientId)
    const colleague = await addMember(t, a.clientId, 'member')
    const b = await createTenant(t)
    const remaining = async (headers: Record<string, string>, path = '/v1/versions/linux') =>
      (await t.request('GET', path, { headers })).headers.get('x-ratelimit-remaining')

    expect(await remaining(a.keyHeaders)).toBe('3')
    expect(await remaining(second.headers)).toBe('2')
    expect(await remaining(a.userHeaders, '/v1/auth/me')).toBe('1')
    expect(await remaining(colleague.headers, '/v1/auth/me')).toBe('0')
    const over = await t.request('GET', '/v1/auth/me', { headers: a.userHeaders })
    expect(over.status).toBe(429)
    expect((await t.request('GET', '/v1/versions/linux', { headers: second.headers })).status).toBe(429)

    // The other tenant's budget is untouched, and so is the anonymous one of the same address.
    expect(await remaining(b.userHeaders, '/v1/auth/me')).toBe('3')
    expect((await t.request('GET', '/health')).headers.get('x-ratelimit-remaining')).toBe('1')
  })
})

describe('a refusal for the rate limit is held before it is sent', () => {
  test('the 429 waits VIGIL_RATE_LIMIT_DELAY_MS (at most the announced wait), so a loop ignoring Retry-After cannot spin', async () => {
    const clock = manualTimers()
    const t = testApp({ timers: clock.timers, config: { rateLimits: { free: 1, pro: 1, enterprise: 1, anonymous: 1 }, rateLimitDelayMs: 1000 } })
    expect((await t.request('GET', '/health')).status).toBe(200)
    let answered = false
    const refused = t.request('GET', '/health').then((r) => {
      answered = true
      return r
    })
    while (clock.pending() === 0) await new Promise((r) => setImmediate(r))
    expect(answered).toBe(false)
    clock.fire()
    const res = await refused
    expect(res.status).toBe(429)
    expect(res.headers.get('retry-after')).toBeTruthy()
  })
})
