import { describe, expect, test } from 'bun:test'
import { publishSelfLater } from '../../src/cli/serve'
import { createLogger } from '../../src/lib/logger'
import { manualTimers } from '../helpers/timers'

/** lets pending promise callbacks run (no time passes: the timers are manual) */
const settled = () => new Promise<void>((resolve) => setImmediate(resolve))

/** publishSelfLater with time passing only when the test fires the timers. */
function setup(publish: () => Promise<unknown>) {
  const lines: string[] = []
  const clock = manualTimers()
  const events: string[] = []
  publishSelfLater(
    () => {
      events.push('publish')
      return publish()
    },
    {
      timers: clock.timers,
      afterMs: 30_000,
      shrink: () => events.push('shrink'),
      logger: createLogger({ level: 'info', format: 'json', write: (l) => lines.push(l) }),
    },
  )
  return { clock, events, lines }
}

describe("the hub's self-publish", () => {
  test('runs once its delay has passed, then gives back the memory the hash went through', async () => {
    let done = () => {}
    const { clock, events } = setup(() => new Promise<void>((resolve) => (done = resolve)))
    expect(events).toEqual([]) // nothing during start-up
    expect(clock.fire()).toBe(1)
    expect(events).toEqual(['publish'])
    await settled()
    expect(events).toEqual(['publish']) // not while the hash is still running
    done()
    await settled()
    expect(events).toEqual(['publish', 'shrink'])
  })

  test('a failed publish is logged and still gives the memory back', async () => {
    const { clock, events, lines } = setup(() => Promise.reject(new Error('disk read failed')))
    clock.fire()
    await settled()
    expect(events).toEqual(['publish', 'shrink'])
    expect(lines.map((l) => JSON.parse(l))).toMatchObject([
      { level: 'warn', msg: 'could not publish this hub as the collector version', error: 'disk read failed' },
    ])
  })
})
