import { expect, test } from 'bun:test'
import { createTurns } from '../../../src/modules/alerts/runtime/alerts.turns'

/** a promise the test settles by hand */
function gate() {
  let open!: () => void
  const shut = new Promise<void>((r) => {
    open = r
  })
  return { shut, open }
}

test("one account's verb waiting on the database does not hold another account's back; its own wait their turn", async () => {
  const turns = createTurns()
  const done: string[] = []
  const slow = gate()
  const a1 = turns.of('a', async () => {
    await slow.shut
    done.push('a1')
  })
  const a2 = turns.of('a', async () => void done.push('a2'))
  await turns.of('b', async () => void done.push('b1'))
  expect(done).toEqual(['b1'])
  slow.open()
  await Promise.all([a1, a2])
  expect(done).toEqual(['b1', 'a1', 'a2'])
})

test("the hub's verb waits for every account's called before it, and those called after wait for it", async () => {
  const turns = createTurns()
  const done: string[] = []
  const slow = gate()
  const a = turns.of('a', async () => {
    await slow.shut
    done.push('a')
  })
  const tick = turns.whole(async () => void done.push('tick'))
  const b = turns.of('b', async () => void done.push('b'))
  await Promise.resolve()
  expect(done).toEqual([])
  slow.open()
  await Promise.all([a, tick, b])
  expect(done).toEqual(['a', 'tick', 'b'])
})

test('a failed verb is its caller’s error; the turns after it still run', async () => {
  const turns = createTurns()
  const failed = turns.of('a', async () => {
    throw new Error('database gone')
  })
  await expect(failed).rejects.toThrow('database gone')
  expect(await turns.of('a', async () => 'next')).toBe('next')
  expect(await turns.whole(async () => 'tick')).toBe('tick')
})

test('an observation that changes nothing runs at once with nothing to wait for; behind a busy account it waits its turn', async () => {
  const turns = createTurns()
  const done: string[] = []
  expect(turns.atOnce('a', () => void done.push('now'))).toBeUndefined()
  expect(done).toEqual(['now'])
  const slow = gate()
  const busy = turns.of('a', async () => {
    await slow.shut
    done.push('slow')
  })
  const later = turns.atOnce('a', () => void done.push('later'))
  expect(later).toBeInstanceOf(Promise)
  expect(done).toEqual(['now'])
  slow.open()
  await Promise.all([busy, later])
  expect(done).toEqual(['now', 'slow', 'later'])
  // a verb that throws before any wait is a rejected promise, not an exception in its caller
  await expect(
    turns.atOnce('b', () => {
      throw new Error('bad selector')
    })!,
  ).rejects.toThrow('bad selector')
})
