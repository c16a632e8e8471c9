import { describe, expect, test } from 'bun:test'
import { compilersYielding, linuxThreads, watchCompilers, type ThreadsPort } from '../../src/lib/compiler-threads'
import { manualTimers } from '../helpers/timers'

/** a process's threads as a test sets them, and the priorities asked for */
function fakeThreads(threads: { tid: number; name: string }[], refuse: number[] = []) {
  const asked: [number, number][] = []
  const port: ThreadsPort = {
    list: () => threads,
    setNice: (tid, nice) => {
      asked.push([tid, nice])
      return !refuse.includes(tid)
    },
  }
  return { port, asked, threads }
}

describe("the JIT's compiler threads yield to the thread that answers requests", () => {
  test('only the compiler threads are given the lowest priority, each once while it lives', () => {
    const f = fakeThreads([
      { tid: 10, name: 'vigil' },
      { tid: 11, name: 'JITWorker' },
      { tid: 12, name: 'HeapHelper' },
      { tid: 13, name: 'JITWorker' },
    ])
    const look = compilersYielding(f.port)
    expect(look()).toBe(2)
    expect(f.asked).toEqual([
      [11, 19],
      [13, 19],
    ])
    expect(look()).toBe(0)
    expect(f.asked).toHaveLength(2)
  })

  test('a compiler thread started after the last look is lowered at the next, and an ended one forgotten', () => {
    const f = fakeThreads([{ tid: 11, name: 'JITWorker' }])
    const look = compilersYielding(f.port)
    look()
    f.threads.splice(0, 1, { tid: 21, name: 'JITWorker' })
    expect(look()).toBe(1)
    expect(f.asked.map(([tid]) => tid)).toEqual([11, 21])
    // the id of the ended thread, reused by a new compiler thread, is lowered again
    f.threads.splice(0, 1, { tid: 11, name: 'JITWorker' })
    expect(look()).toBe(1)
    expect(f.asked.map(([tid]) => tid)).toEqual([11, 21, 11])
  })

  test('a thread the system refused is asked again at the next look', () => {
    const f = fakeThreads([{ tid: 11, name: 'JITWorker' }], [11])
    const look = compilersYielding(f.port)
    expect(look()).toBe(0)
    expect(look()).toBe(0)
    expect(f.asked).toEqual([
      [11, 19],
      [11, 19],
    ])
  })

  test.skipIf(process.platform !== 'linux')('on Linux the port lists this process and lowers a thread it names', () => {
    const port = linuxThreads()!
    const threads = port.list()
    expect(threads.some((t) => t.tid === process.pid)).toBe(true)
    // lowering is allowed to anyone (raising back is not): a thread of this test process that is not the main one
    const other = threads.find((t) => t.tid !== process.pid)
    if (other) expect(port.setNice(other.tid, 19)).toBe(true)
  })
})

describe('the hub looks for compiler threads while requests come', () => {
  test('a look at each tick with new requests, none while quiet; the port made at the first look; nothing after the stop', () => {
    const t = manualTimers()
    let requests = 0
    let made = 0
    const f = fakeThreads([{ tid: 11, name: 'JITWorker' }])
    let lists = 0
    const port: ThreadsPort = {
      list: () => {
        lists++
        return f.threads
      },
      setNice: f.port.setNice,
    }
    const stop = watchCompilers({
      requests: () => requests,
      port: () => {
        made++
        return port
      },
      timers: t.timers,
      everyMs: 250,
    })
    t.fire()
    expect([made, lists]).toEqual([0, 0]) // quiet since start: not even the port
    requests = 5
    t.fire()
    expect([made, lists]).toEqual([1, 1])
    expect(f.asked).toEqual([[11, 19]])
    t.fire()
    expect(lists).toBe(1) // no request since
    requests = 6
    t.fire()
    expect([made, lists]).toEqual([1, 2])
    stop()
    expect(t.pending()).toBe(0)
  })
})
