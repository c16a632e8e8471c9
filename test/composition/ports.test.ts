import { describe, expect, test } from 'bun:test'
import { compose } from '../../src/composition'
import { testConfig } from '../../src/config'
import { openDatabase } from '../../src/db/connection'
import { migrate } from '../../src/db/migrate'
import { manualClock } from '../../src/lib/clock'
import { memoryLogger } from '../../src/lib/logger'
import { TEST_JWT_SECRET } from '../helpers/app'

function composed() {
  const clock = manualClock()
  const db = openDatabase(':memory:')
  migrate(db.sqlite, clock.now())
  return compose({ config: testConfig(), db, clock, logger: memoryLogger().logger, jwtSecret: TEST_JWT_SECRET })
}

const isPlain = (v: unknown): v is Record<string, unknown> => {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false
  const proto = Object.getPrototypeOf(v)
  return proto === Object.prototype || proto === null
}
const NO_OP = /^(\(\)|function\s*\w*\(\))\s*(=>)?\s*\{\s*\}$/

/**
 * Every property of every deps object the composition root hands out, walked a few levels
 * deep through plain objects (stores, databases and class instances are leaves): its path,
 * and its value.
 */
function walk(root: Record<string, unknown>, depth = 3): [string, unknown][] {
  const out: [string, unknown][] = []
  const seen = new Set<unknown>()
  const visit = (path: string, v: Record<string, unknown>, d: number) => {
    if (seen.has(v)) return
    seen.add(v)
    for (const key of Object.keys(v)) {
      const value = Object.getOwnPropertyDescriptor(v, key)?.get ? '(getter)' : v[key]
      out.push([`${path}.${key}`, value])
      if (d > 0 && isPlain(value)) visit(`${path}.${key}`, value, d - 1)
    }
  }
  visit('modules', root, depth)
  return out
}

describe('the composition root fills every port when it builds a group', () => {
  test('no deps object has a port left undefined', () => {
    const { modules } = composed()
    const unfilled = walk(modules as unknown as Record<string, unknown>)
      .filter(([, v]) => v === undefined)
      .map(([path]) => path)
    expect(unfilled).toEqual([])
  })

  test('no port is a default that does nothing', () => {
    const { modules } = composed()
    const noOps = walk(modules as unknown as Record<string, unknown>)
      .filter(([, v]) => typeof v === 'function' && NO_OP.test(v.toString().trim()))
      .map(([path]) => path)
    expect(noOps).toEqual([])
  })

  test('the ports other groups answer are functions from the start', () => {
    const { modules } = composed()
    expect(typeof modules.devices.events?.registered).toBe('function')
    expect(typeof modules.devices.events?.deleted).toBe('function')
    expect(typeof modules.metrics.stored).toBe('function')
    expect(typeof modules.metrics.ingested).toBe('function')
    expect(typeof modules.recommendations.created).toBe('function')
    expect(typeof modules.billing.subscriptionUpdated).toBe('function')
    expect(typeof modules.overview.alertsFiring).toBe('function')
    expect(typeof modules.alerts.channels.unknown).toBe('function')
  })

  test('every hook made up front has a listener: nothing is called into the void', () => {
    const { hooks } = composed()
    const deaf = Object.entries(hooks)
      .filter(([, h]) => h.listeners === 0)
      .map(([name]) => name)
    expect(deaf).toEqual([])
    // the live stream hears a sample before the alerts do: a device coming back is online first
    expect(hooks.sampleStored.listeners).toBe(2)
  })

  test('every lookup made up front is answered: no group asks into the void', () => {
    const { lookups } = composed()
    const unanswered = Object.entries(lookups)
      .filter(([, l]) => !l.answered)
      .map(([name]) => name)
    expect(unanswered).toEqual([])
  })
})
