import { describe, expect, test } from 'bun:test'
import { GATHER_REQUESTS } from '../../../src/modules/metrics/metrics.gather'
import {
  TOUCH_EVERY_MS,
  createGroupCommit,
  createSeenSweep,
  createWrittenNotes,
  type Pending,
  type WriteJob,
} from '../../../src/modules/metrics/metrics.group-commit'
import { manualTimers } from '../../helpers/timers'

/** A turn of the event loop and the promise jobs after it. */
const turn = () => new Promise<void>((r) => setImmediate(r))
/** A few turns: a settled commit's promise jobs, then the turn they schedule. */
const turns = async () => {
  for (let i = 0; i < 3; i++) await turn()
}

const job = (deviceSeq: number): WriteJob => ({ deviceSeq, samples: [] })
const answer = (batch: Pending[]) => {
  for (const p of batch) p.resolve({ ids: [p.job.deviceSeq], duplicate: null })
}
/** a synchronous commit that notes each group's devices and answers its requests */
const record = (groups: number[][]) => (batch: Pending[]) => {
  groups.push(batch.map((p) => p.job.deviceSeq))
  answer(batch)
}

describe('the group-commit core both metric writers share', () => {
  test('requests gathered together go as one group when the timer fires, each answered by the commit', async () => {
    const t = manualTimers()
    const groups: number[][] = []
    const core = createGroupCommit(
      (batch) => {
        groups.push(batch.map((p) => p.job.deviceSeq))
        answer(batch)
      },
      t.timers,
      () => 0,
    )
    const a = core.submit(job(1))
    const b = core.submit(job(2))
    expect(core.queued()).toBe(2)
    expect(t.pending()).toBe(1) // one gathering timer for both
    await turn()
    expect(groups).toEqual([])
    t.fire()
    expect(groups).toEqual([[1, 2]])
    expect(await a).toEqual({ ids: [1], duplicate: null })
    expect(await b).toEqual({ ids: [2], duplicate: null })
    expect(core.queued()).toBe(0)
  })

  test('a device committed a moment ago goes on the next turn, without waiting for the timer', async () => {
    const t = manualTimers()
    let now = 0
    const groups: number[][] = []
    const core = createGroupCommit(
      (batch) => {
        groups.push(batch.map((p) => p.job.deviceSeq))
        answer(batch)
      },
      t.timers,
      () => now,
    )
    const first = core.submit(job(7))
    t.fire()
    await first
    now += 10
    const again = core.submit(job(7))
    await turn()
    expect(groups).toEqual([[7], [7]])
    expect(t.pending()).toBe(0)
    await again
  })

  test('GATHER_REQUESTS pending requests go at once', async () => {
    const t = manualTimers()
    const groups: number[] = []
    const core = createGroupCommit(
      (batch) => {
        groups.push(batch.length)
        answer(batch)
      },
      t.timers,
      () => 0,
    )
    const all = Array.from({ length: GATHER_REQUESTS }, (_, i) => core.submit(job(i + 1)))
    expect(t.pending()).toBe(0) // the last one cancelled the gathering timer
    await turn()
    expect(groups).toEqual([GATHER_REQUESTS])
    await Promise.all(all)
  })

  test('a held core queues requests; a group due meanwhile goes as soon as it is released', async () => {
    const t = manualTimers()
    const groups: number[][] = []
    const core = createGroupCommit(record(groups), t.timers, () => 0)
    const a = core.submit(job(1))
    const release = core.hold()
    const b = core.submit(job(2))
    t.fire() // the gathering ends while held
    await turns()
    expect(groups).toEqual([])
    expect(core.queued()).toBe(2)
    const other = core.hold()
    release()
    release() // a second call does nothing: the other hold still holds
    await turns()
    expect(groups).toEqual([])
    other()
    await turn()
    expect(groups).toEqual([[1, 2]])
    await Promise.all([a, b])
  })

  test('requests submitted while held wait for the gathering once released', async () => {
    const t = manualTimers()
    const groups: number[][] = []
    const core = createGroupCommit(record(groups), t.timers, () => 0)
    const release = core.hold()
    const a = core.submit(job(1))
    expect(t.pending()).toBe(0)
    release()
    expect(t.pending()).toBe(1)
    t.fire()
    expect(groups).toEqual([[1]])
    await a
  })

  test('an asynchronous commit has one group in flight: requests arriving meanwhile go together as the next group, once it settles', async () => {
    const t = manualTimers()
    const groups: number[][] = []
    let finish: (() => void) | null = null
    let inFlight = 0
    let most = 0
    const core = createGroupCommit(
      async (batch) => {
        groups.push(batch.map((p) => p.job.deviceSeq))
        most = Math.max(most, ++inFlight)
        await new Promise<void>((r) => (finish = r))
        inFlight--
        answer(batch)
      },
      t.timers,
      () => 0,
    )
    const a = core.submit(job(1))
    t.fire()
    expect(groups).toEqual([[1]])
    const b = core.submit(job(2))
    const c = core.submit(job(3))
    t.fire() // the gathering ends while the first group is in flight: it waits for it
    await turn()
    expect(groups).toEqual([[1]])
    finish!()
    await a
    await turns()
    expect(groups).toEqual([[1], [2, 3]])
    finish!()
    await Promise.all([b, c])
    expect(most).toBe(1)
  })
})

describe('what a writer notes of the samples it stored', () => {
  test('per device the oldest time since the last take, and the newest time while it is recent', () => {
    let now = 1_000
    const notes = createWrittenNotes(() => now)
    notes.written(1, 500)
    notes.written(1, 300)
    notes.written(2, 900)
    expect(notes.newestWrittenWithin(1, 100)).toBe(500)
    expect([...notes.takeWrittenSince()]).toEqual([
      [1, 300],
      [2, 900],
    ])
    expect(notes.takeWrittenSince().size).toBe(0)
    now += 101
    expect(notes.newestWrittenWithin(1, 100)).toBeNull()
    now -= 101
    expect(notes.newestWrittenWithin(1, 100)).toBeNull() // forgotten once found too old
  })

  test('the late samples span per kind, taken at once', () => {
    const notes = createWrittenNotes(() => 0)
    notes.late('hardware', 50)
    notes.late('hardware', 20)
    notes.late('hardware', 80)
    notes.late('network', 10)
    expect(notes.takeSpans()).toEqual({ hardware: { from: 20, to: 80 }, network: { from: 10, to: 10 } })
    expect(notes.takeSpans()).toEqual({ hardware: null, network: null })
  })
})

describe('which devices a group writes last_seen_at for', () => {
  test('a device its first time at once; those seen since, all together once TOUCH_EVERY_MS has passed', () => {
    const seen = createSeenSweep()
    expect(seen.due([1, 2], 0)).toEqual([1, 2]) // first times (the first sweep finds no other)
    expect(seen.due([1, 3], 1_000)).toEqual([3])
    expect(seen.due([2], TOUCH_EVERY_MS - 1)).toEqual([])
    expect(seen.due([], TOUCH_EVERY_MS)).toEqual([1, 2])
    expect(seen.due([], 2 * TOUCH_EVERY_MS)).toEqual([])
  })
})
