import { describe, expect, test } from 'bun:test'
import { ApiError } from '../../web/src/lib/api'
import { describeError, fieldErrors } from '../../web/src/lib/errors'
import { ERROR_CODES } from '../../src/http/errors'
import { testApp } from '../helpers/app'

describe('errors as people read them', () => {
  test('a code becomes a plain sentence; codes whose message names the rule keep it', () => {
    expect(describeError(new ApiError(401, 'invalid_credentials', 'Invalid email or password'))).toContain('do not match')
    expect(describeError(new ApiError(0, 'network', 'x'))).toContain('could not be reached')
    expect(describeError(new ApiError(403, 'signup_closed', 'Registration is closed on this instance; ask its operator'))).toBe(
      'Registration is closed on this instance; ask its operator',
    )
    expect(describeError(new ApiError(418, 'teapot', 'I am a teapot'))).toBe('I am a teapot')
  })

  test('every code the portal names a sentence for is a code the API has', () => {
    for (const code of ['invalid_credentials', 'unauthorized', 'forbidden', 'not_found', 'email_taken', 'rate_limited', 'internal_error', 'storage_full']) {
      expect(Object.keys(ERROR_CODES)).toContain(code)
    }
  })

  test('a real 422 from the API lands on the fields its loc names', async () => {
    const res = await testApp().request('POST', '/v1/auth/register', { body: { email: 'not-an-email', password: 'short' } })
    const err = new ApiError(res.status, 'validation_error', 'invalid', null, res.body.detail)
    expect(fieldErrors(err)).toEqual({ email: 'Enter a valid email address.', password: 'Use at least 8 characters.' })
  })

  test('an error with a param and no detail marks that field', () => {
    expect(fieldErrors(new ApiError(403, 'setup_token_required', 'Wrong setup token', 'setup_token'))).toEqual({ setup_token: 'Wrong setup token' })
    expect(fieldErrors(new Error('x'))).toEqual({})
  })
})
