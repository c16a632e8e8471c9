import { describe, expect, test } from 'bun:test'
import { createTenant } from '../../helpers/fixtures'
import { aiTestApp } from '../../helpers/ai'
import { renderPrompt, unknownVariables } from '../../../src/modules/ai/ai.prompt'

const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__']

describe('prompt variables are the documented ones only, never inherited names', () => {
  test('PATCH /v1/ai/prompt: {{constructor}} and other prototype names are 422 invalid_prompt naming them', async () => {
    const t = aiTestApp()
    const a = await createTenant(t)
    for (const name of PROTOTYPE_NAMES) {
      const res = await t.request('PATCH', '/v1/ai/prompt', { headers: a.userHeaders, body: { prompt: `Host {{hostname}} {{${name}}}` } })
      expect({ name, status: res.status, error: res.body.error }).toMatchObject({ name, status: 422, error: { code: 'invalid_prompt', param: name } })
    }
  })

  test('rendering leaves a prototype name as written instead of filling in a function', () => {
    expect(unknownVariables('{{ constructor }} {{hostname}}')).toEqual(['constructor'])
    const out = renderPrompt('{{constructor}} {{toString}} {{hostname}}', { hostname: 'h1', os: 'linux', hours: '24', summary: '{}' })
    expect(out).toBe('{{constructor}} {{toString}} h1')
  })
})
