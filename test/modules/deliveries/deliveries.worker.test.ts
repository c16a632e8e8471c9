import { afterEach, describe, expect, test } from 'bun:test'
import { manualClock } from '../../../src/lib/clock'
import { createLogger } from '../../../src/lib/logger'
import { type ClaimSource, sqliteClaims } from '../../../src/modules/deliveries/deliveries.claim'
import { createDeliveryWorker, type DeliveryQueue } from '../../../src/modules/deliveries/deliveries.worker'
import type { Job } from '../../../src/modules/deliveries/deliveries.due'
import { rotate } from '../../../src/modules/deliveries/deliveries.slots'

import { manualTimers } from '../../helpers/timers'

/** An in-memory queue: rows due at once, claimed in order, results kept. */
function memoryQueue(rows: Job[], opts: { failComplete?: (job: Job) => boolean } = {}) {
  const pending = [...rows]
  const sending = new Set<string>()
  const done: string[] = []
  const reads: string[] = []
  const source: ClaimSource<Job> = {
    dueAccounts: () =>
      [...new Set(pending.map((r) => r.account))].map((account) => ({
        account,
        destinations: [...new Set(pending.filter((r) => r.account === account).map((r) => r.destination))],
      })),
    dueOf: (account, _now, skip, limit) => {
      reads.push(account)
      return pending.filter((r) => r.account === account && !skip.includes(r.destination)).slice(0, limit)
    },
    take(id) {
      const i = pending.findIndex((r) => r.id === id)
      if (i < 0) return null
      sending.add(id)
      return pending.splice(i, 1)[0]!
    },
  }
  const queue: DeliveryQueue<Job, string> = {
    claims: sqliteClaims(source, (fn) => fn()),
    async complete(job, result) {
      if (opts.failComplete?.(job)) throw new Error('FOREIGN KEY constraint failed')
      sending.delete(job.id)
      done.push(`${job.id}:${result}`)
      return undefined
    },
    nextDueAt: async () => (pending.length ? 0 : null),
    releaseClaims: async () => {},
  }
  return { queue, done, pending, sending, reads }
}

const rowsOf = (account: string, n: number, destinations = 1) =>
  Array.from({ length: n }, (_, i) => ({ id: `${account}-${i}`, account, destination: `${account}-d${i % destinations}` }))

let stops: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const stop of stops) await stop()
  stops = []
})

function worker(
  queue: DeliveryQueue<Job, string>,
  send: (job: Job, stop: AbortSignal) => Promise<string>,
  caps = { total: 8, perAccount: 4, perDestination: 2 },
) {
  const logs: string[] = []
  const w = createDeliveryWorker<Job, string>({
    name: 'test',
    queue,
    send,
    caps,
    clock: manualClock(0),
    timers: manualTimers().timers,
    logger: createLogger({ level: 'debug', format: 'json', write: (line: string) => void logs.push(line) }),
  })
  stops.push(() => w.stop())
  w.start()
  return { w, logs }
}

/** a send that never answers until the worker stops (a tarpit) */
const tarpit = (_job: Job, stop: AbortSignal) => new Promise<string>((resolve) => stop.addEventListener('abort', () => resolve('aborted')))

describe('the delivery core', () => {
  test("an account whose receivers never answer holds its share only: another account's row goes out at once", async () => {
    const sent: string[] = []
    const { queue } = memoryQueue([...rowsOf('a', 400, 5), ...rowsOf('b', 1)])
    worker(queue, (job, stop) => {
      sent.push(job.id)
      return job.account === 'b' ? Promise.resolve('ok') : tarpit(job, stop)
    })
    await new Promise((r) => setTimeout(r, 0))
    await new Promise((r) => setImmediate(r))
    expect(sent).toContain('b-0')
    expect(sent.filter((id) => id.startsWith('a-'))).toHaveLength(4) // its per-account cap, not the whole pool
  })

  test('per destination: one channel or endpoint cannot take all of its account’s slots', async () => {
    const sent: string[] = []
    const { queue } = memoryQueue([...rowsOf('a', 10, 1), { id: 'a-other', account: 'a', destination: 'elsewhere' }])
    worker(queue, (job, stop) => {
      sent.push(job.id)
      return tarpit(job, stop)
    })
    // the start, then the first tick's claim
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r))
    expect(sent.toSorted()).toEqual(['a-0', 'a-1', 'a-other'])
  })

  test('a slot is freed the moment its attempt ends: no batch waits on its slowest member', async () => {
    const { queue, done } = memoryQueue(rowsOf('a', 6, 6))
    const sent: string[] = []
    const { w } = worker(
      queue,
      (job, stop) => {
        sent.push(job.id)
        return job.id === 'a-0' ? tarpit(job, stop) : Promise.resolve('ok')
      },
      { total: 2, perAccount: 2, perDestination: 1 },
    )
    // a-0 never ends; the other slot works through the rest one after the other
    for (let i = 0; i < 20 && done.length < 5; i++) await new Promise((r) => setTimeout(r, 3))
    expect(done.toSorted()).toEqual(['a-1:ok', 'a-2:ok', 'a-3:ok', 'a-4:ok', 'a-5:ok'])
    expect(w.inFlight()).toBe(1)
  })

  test('a result that cannot be written is dropped and logged; the rows after it still go out', async () => {
    const { queue, done } = memoryQueue([...rowsOf('a', 1), ...rowsOf('b', 3, 3)], { failComplete: (job) => job.id === 'a-0' })
    const { w, logs } = worker(queue, async () => 'ok')
    for (let i = 0; i < 20 && done.length < 3; i++) await w.idle()
    expect(done.toSorted()).toEqual(['b-0:ok', 'b-1:ok', 'b-2:ok'])
    expect(logs.some((l) => l.includes('test result not recorded') && l.includes('FOREIGN KEY'))).toBe(true)
  })

  test('an account whose only busy destination is full costs no read while others are served', async () => {
    const { queue, reads } = memoryQueue([...rowsOf('a', 100, 1), ...rowsOf('b', 50, 50)])
    worker(queue, (job, stop) => (job.account === 'a' ? tarpit(job, stop) : Promise.resolve('ok')), { total: 8, perAccount: 4, perDestination: 2 })
    for (let i = 0; i < 50 && reads.filter((r) => r === 'b').length < 10; i++) await new Promise((r) => setTimeout(r, 3))
    // b's attempts end and tick again and again; a, with its one endpoint full, is not read each time
    expect(reads.filter((r) => r === 'b').length).toBeGreaterThanOrEqual(10)
    expect(reads.filter((r) => r === 'a').length).toBeLessThanOrEqual(2)
  })

  test('accounts are served in turn, starting after the last one served', () => {
    expect(rotate(['c', 'a', 'b'], null)).toEqual(['a', 'b', 'c'])
    expect(rotate(['c', 'a', 'b'], 'a')).toEqual(['b', 'c', 'a'])
    expect(rotate(['c', 'a', 'b'], 'c')).toEqual(['a', 'b', 'c'])
  })
})
