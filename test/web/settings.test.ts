import { describe, expect, test } from 'bun:test'
import { draftOf, patchOf, type Draft } from '../../web/src/settings/ai-draft'
import { expiryOf } from '../../web/src/settings/expiry'
import { limitsPatch } from '../../web/src/settings/limits'
import { invitationLink } from '../../web/src/settings/links'
import { money } from '../../web/src/settings/money'
import { pageFromSearch } from '../../web/src/settings/paging'
import { extraFeatures } from '../../web/src/settings/plans'
import type { AdminClient, AiConfig, Plan } from '../../web/src/settings/types'

const config = (over: Partial<AiConfig> = {}): AiConfig => ({
  provider: 'openai',
  model: 'gpt-4o-mini',
  base_url: 'https://api.openai.com/v1',
  api_key: '••••wxyz',
  api_key_set: true,
  inherited: false,
  temperature: 0.2,
  max_tokens: 1024,
  schedule: null,
  effective_schedule: '0 * * * *',
  enabled: true,
  prompt: 'p',
  prompt_custom: false,
  daily_budget: 48,
  last_run_at: null,
  updated_at: null,
  ...over,
})

describe('the AI form sends only what changed', () => {
  const initial = draftOf(config())
  const cases: [string, Partial<Draft>, Record<string, unknown>][] = [
    ['nothing touched: nothing sent (re-sending the shown base URL would drop the stored key)', {}, {}],
    ['a new key only', { api_key: 'sk-new' }, { api_key: 'sk-new' }],
    ['the key removed', { remove_key: true }, { api_key: null }],
    ['the model cleared: back to the default', { model: '' }, { model: null }],
    ['the base URL moved', { base_url: ' https://llm.example.test/v1 ' }, { base_url: 'https://llm.example.test/v1' }],
    [
      'another provider: its defaults, only what was typed',
      { provider: 'anthropic', model: '', base_url: '', api_key: 'k' },
      { provider: 'anthropic', api_key: 'k' },
    ],
    ['back to the instance default: no connection fields', { provider: '', model: 'x', api_key: 'k' }, { provider: null }],
    ['the rules: no connection fields', { provider: 'rules', api_key: 'k' }, { provider: 'rules' }],
    [
      'numbers, schedule and switch',
      { temperature: '0.7', max_tokens: '256', schedule: ' */30 * * * * ', enabled: false },
      { temperature: 0.7, max_tokens: 256, schedule: '*/30 * * * *', enabled: false },
    ],
    ['a schedule emptied: back to the default', { schedule: '' }, {}],
  ]
  for (const [name, change, patch] of cases) test(name, () => expect(patchOf(initial, { ...initial, ...change })).toEqual(patch))

  test('a schedule that was set and is emptied goes back to the default (null)', () => {
    const set = draftOf(config({ schedule: '0 3 * * *' }))
    expect(patchOf(set, { ...set, schedule: '' })).toEqual({ schedule: null })
  })

  test('an inherited connection shows no fields of its own', () => {
    expect(draftOf(config({ inherited: true }))).toMatchObject({ provider: '', model: '', base_url: '' })
  })
})

describe("the operator's limits", () => {
  const client = { plan_type: 'free', max_devices_override: null, max_users_override: 10, rate_limit: null } as AdminClient
  const form = (fields: Record<string, string>) => {
    const d = new FormData()
    for (const [k, v] of Object.entries({ plan_type: 'free', max_devices: '', max_users: '10', rate_limit: '', ...fields })) d.set(k, v)
    return d
  }
  const cases: [string, Record<string, string>, Record<string, unknown>][] = [
    ['unchanged: nothing', {}, {}],
    ['a device limit set', { max_devices: '5' }, { max_devices: 5 }],
    ['a member limit emptied: the plan again', { max_users: '' }, { max_users: null }],
    ['a plan chosen', { plan_type: 'b2c_monthly' }, { plan_type: 'b2c_monthly' }],
    ['a rate limit', { rate_limit: ' 120 ' }, { rate_limit: 120 }],
  ]
  for (const [name, fields, patch] of cases) test(name, () => expect(limitsPatch(client, form(fields))).toEqual(patch))
})

describe('key expiry', () => {
  const now = Date.parse('2026-03-01T12:00:00Z')
  test.each([
    ['never', '', null],
    ['30', '', '2026-03-31T12:00:00.000Z'],
    ['365', '', '2027-03-01T12:00:00.000Z'],
    ['date', '', null],
  ])('%s %s → %s', (choice, date, want) => expect(expiryOf(choice, date, now)).toBe(want))

  test('a date is the end of that day where the browser is', () => {
    const at = new Date(expiryOf('date', '2026-04-02', now)!)
    expect([at.getFullYear(), at.getMonth(), at.getDate(), at.getHours(), at.getMinutes()]).toEqual([2026, 3, 2, 23, 59])
  })
})

describe('pricing', () => {
  const plan = (features: string[]): Plan => ({
    id: 'p',
    name: 'P',
    currency: 'usd',
    interval: 'month',
    price: 900,
    features,
    tier: 'pro',
    max_devices: 10,
    max_users: 50,
    rate_limit: 600,
  })
  test('features that only restate a limit shown beside them are left out; others stay', () => {
    expect(extraFeatures(plan(['10 devices', '600 requests per minute', '50 members', 'AI recommendations', '20 devices', '1,000 requests']))).toEqual([
      'AI recommendations',
      '20 devices',
      '1,000 requests',
    ])
  })

  test.each([
    [900, 'usd', '$9.00'],
    [4900, 'USD', '$49.00'],
    [900, 'eur', '€9.00'],
    [900, 'jpy', '¥900'],
    [null, 'usd', '—'],
    [900, null, '—'],
  ])('%p %p → %p', (amount, currency, want) => expect(money(amount, currency, 'en-US')).toBe(want))
})

describe('lists and links', () => {
  test.each([
    ['', 0],
    ['page=1', 0],
    ['page=3', 2],
    ['page=0', 0],
    ['page=-2', 0],
    ['page=2.5', 0],
    ['page=x', 0],
  ])('?%s → page %d', (q, want) => expect(pageFromSearch(new URLSearchParams(q))).toBe(want))

  test('the invitation link carries the secret, escaped', () => {
    expect(invitationLink('vin_a/b', 'https://vigil.example.com')).toBe('https://vigil.example.com/invite/vin_a%2Fb')
  })
})
