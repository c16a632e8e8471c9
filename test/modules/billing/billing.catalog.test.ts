import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ConfigError } from '../../../src/config'
import { DEFAULT_PLANS, loadPlans, plansFrom, tierOf } from '../../../src/modules/billing/billing.catalog'
import { pruneBillingEvents } from '../../../src/modules/billing/billing.jobs'
import { testApp } from '../../helpers/app'

const dir = mkdtempSync(join(tmpdir(), 'vigil-plans-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const file = (name: string, body: string) => {
  const p = join(dir, name)
  writeFileSync(p, body)
  return p
}

describe('plan catalog', () => {
  test('defaults: free, Pro and Enterprise, monthly and yearly', () => {
    expect(loadPlans(null)).toBe(DEFAULT_PLANS)
    expect(DEFAULT_PLANS.map((p) => [p.id, p.tier])).toEqual([
      ['free', 'free'],
      ['b2c_monthly', 'pro'],
      ['b2c_yearly', 'pro'],
      ['b2b_monthly', 'enterprise'],
      ['b2b_yearly', 'enterprise'],
    ])
    expect(tierOf(DEFAULT_PLANS, 'gone')).toBe('free')
  })

  test('a plans file overrides fields of a default plan by id, adds plans and disables others', () => {
    const plans = plansFrom({
      plans: [
        { id: 'b2c_monthly', price: 1200, stripe_price_id: 'price_123', max_devices: 20 },
        { id: 'b2b_yearly', disabled: true },
        { id: 'team', name: 'Team', tier: 'pro', price: 2900, currency: 'EUR', interval: 'month', max_devices: 25, features: ['25 devices'] },
      ],
    })
    expect(plans.map((p) => p.id)).toEqual(['free', 'b2c_monthly', 'b2c_yearly', 'b2b_monthly', 'team'])
    expect(plans[1]).toMatchObject({ id: 'b2c_monthly', name: 'Pro (monthly)', price: 1200, stripePriceId: 'price_123', maxDevices: 20, maxUsers: 50 })
    expect(plans[4]).toEqual({
      id: 'team',
      name: 'Team',
      tier: 'pro',
      price: 2900,
      currency: 'eur',
      interval: 'month',
      features: ['25 devices'],
      maxDevices: 25,
      maxUsers: 50,
      stripePriceId: null,
    })
    expect(DEFAULT_PLANS[1]!.price).toBe(900) // the defaults are not mutated
  })

  test('a bad plans file is a ConfigError that says what is wrong', () => {
    const bad: [unknown, string][] = [
      [{ plans: [{ id: 'b2c_monthly', price: -1 }] }, '/plans/0/price'],
      [{ plans: [{ id: 'b2c_monthly', pirce: 1 }] }, '/plans/0/pirce'],
      [{ plans: [{ id: 'new_plan', price: 100 }] }, 'new plan "new_plan" needs name, tier, currency, interval, max_devices'],
      [{ plans: [{ id: 'free', disabled: true }] }, 'the "free" plan cannot be removed'],
      [{ plans: [{ id: 'free', price: 100 }] }, 'price 0'],
      [{ plans: [{ id: 'b2c_monthly' }, { id: 'b2c_monthly', price: 1 }] }, 'appears twice'],
      [{ plans: [{ id: 'b2c_monthly', stripe_price_id: 'prod_x' }] }, '/plans/0/stripe_price_id'],
      ['nope', 'expected {"plans"'],
    ]
    for (const [doc, msg] of bad) {
      expect(() => plansFrom(doc)).toThrow(ConfigError)
      expect(() => plansFrom(doc)).toThrow(msg)
    }
  })

  test('VIGIL_PLANS_FILE is read at start and shows in GET /v1/billing/plans', async () => {
    const path = file('plans.json', JSON.stringify([{ id: 'b2c_monthly', price: 1500 }]))
    const t = testApp({ config: { plansFile: path } })
    const res = await t.request('GET', '/v1/billing/plans')
    expect(res.body.find((p: { id: string }) => p.id === 'b2c_monthly').price).toBe(1500)
  })

  test('an unreadable or malformed file stops the start with a ConfigError naming it', () => {
    expect(() => loadPlans(join(dir, 'missing.json'))).toThrow(/VIGIL_PLANS_FILE .*missing\.json could not be read/)
    expect(() => loadPlans(file('broken.json', '{ plans: '))).toThrow(/broken\.json could not be read as JSON/)
    expect(() => testApp({ config: { plansFile: file('bad.json', '{"plans":[{"id":"free","disabled":true}]}') } })).toThrow(ConfigError)
  })
})

describe('billing jobs', () => {
  test('prune processed event ids after 30 days', () => {
    const t = testApp()
    t.db.sqlite.run("INSERT INTO billing_events (id, type, outcome, received_at) VALUES ('evt_old', 'x', 'applied', ?), ('evt_new', 'x', 'applied', ?)", [
      t.clock.now() - 31 * 86_400_000,
      t.clock.now() - 29 * 86_400_000,
    ])
    expect(t.jobs.map((j) => j.name)).toContain('billing.prune-events')
    pruneBillingEvents(t.modules.billing)
    expect(t.db.sqlite.query<{ id: string }, []>('SELECT id FROM billing_events').all()).toEqual([{ id: 'evt_new' }])
  })
})
