import { describe, expect, test } from 'bun:test'
import { manualClock } from '../../../src/lib/clock'
import { ACCESS_TOKEN_TTL_SECONDS, accessTokens } from '../../../src/modules/users/users.tokens'

const secret = 'tokens-test-secret-tokens-test-secret!!'

describe('access token verification (verified-token cache)', () => {
  test('a token already verified still expires at exp', async () => {
    const clock = manualClock()
    const tokens = accessTokens(secret, clock)
    const token = await tokens.sign({ userId: 'u_1', clientId: 'c_1', role: 'user' })
    expect(await tokens.verify(token)).toMatchObject({ kind: 'user', userId: 'u_1', clientId: 'c_1' })
    expect(await tokens.verify(token)).toMatchObject({ kind: 'user', userId: 'u_1' })
    clock.advance(ACCESS_TOKEN_TTL_SECONDS * 1000)
    expect(await tokens.verify(token)).toMatchObject({ kind: 'invalid' })
  })

  test('the stored role is still read on every request', async () => {
    let role: 'admin' | 'user' | null = 'admin'
    const tokens = accessTokens(secret, manualClock(), () => role)
    const token = await tokens.sign({ userId: 'u_1', clientId: 'c_1', role: 'admin' })
    expect(await tokens.verify(token)).toMatchObject({ role: 'admin' })
    role = 'user'
    expect(await tokens.verify(token)).toMatchObject({ role: 'user' })
    role = null
    expect(await tokens.verify(token)).toMatchObject({ kind: 'invalid' })
  })

  test('a tampered token is refused even after the genuine one was cached', async () => {
    const tokens = accessTokens(secret, manualClock())
    const token = await tokens.sign({ userId: 'u_1', clientId: 'c_1', role: 'user' })
    await tokens.verify(token)
    const [h, p, s] = token.split('.')
    expect(await tokens.verify(`${h}.${p}.${s!.slice(0, -2)}xx`)).toMatchObject({ kind: 'invalid' })
    const other = accessTokens('another-secret-another-secret-another!!', manualClock())
    expect(await other.verify(token)).toMatchObject({ kind: 'invalid' })
  })
})
