import { describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { createHotStore } from '../../src/modules/metrics/metrics.hot.store'
import { openSync, readSync, closeSync } from 'node:fs'
import { join } from 'node:path'
import {
  checkpointCycle,
  MAX_PASSES,
  idleCyclesBeforeStop,
  startCheckpointer,
  TRIM_ABOVE_BYTES,
  workerRunner,
  type CheckpointRunner,
  type CheckpointerOptions,
} from '../../src/db/checkpointer'
import { openDatabase } from '../../src/db/connection'
import type { CheckpointMode, CheckpointResult } from '../../src/db/wal'
import { memoryLogger } from '../../src/lib/logger'
import { testApp } from '../helpers/app'
import { tempDir } from '../helpers/binary'
import { manualTimers } from '../helpers/timers'
import { tenantWithDevices } from '../helpers/metrics'
import { hardwareSample } from '../helpers/samples'

/** a checkpoint's answer; by default it copied everything it found */
const result = (r: Partial<CheckpointResult>): CheckpointResult => ({ busy: 0, log: 100, checkpointed: r.log ?? 100, ms: 1, walBytes: 4096, ...r })

/** A runner that answers from a script and records, with the holds, what happened in which order. */
function scripted(answers: Partial<CheckpointResult>[]) {
  const events: string[] = []
  let i = 0
  const runner: Pick<CheckpointRunner, 'run' | 'sync'> = {
    async run(mode: CheckpointMode) {
      events.push(mode)
      return result(answers[Math.min(i++, answers.length - 1)]!)
    },
    async sync() {
      events.push('sync')
    },
  }
  const hold = () => {
    events.push('hold')
    return () => events.push('release')
  }
  return { runner, hold, events }
}

describe('a checkpoint cycle', () => {
  test('with nothing in the WAL it holds nothing', async () => {
    const s = scripted([{ log: 0, checkpointed: 0 }])
    const out = await checkpointCycle(s.runner, s.hold)()
    expect(s.events).toEqual(['PASSIVE'])
    expect(out).toMatchObject({ heldMs: 0, complete: true, trimmed: false })
  })

  test('catches up while writes go on, flushes, then holds writes only for the tail', async () => {
    const s = scripted([
      { log: 9000, ms: 120 },
      { log: 9500, ms: 30 },
      { log: 9520, ms: 4 },
      { log: 9530, ms: 2 },
    ])
    const out = await checkpointCycle(s.runner, s.hold)()
    expect(s.events).toEqual(['PASSIVE', 'PASSIVE', 'PASSIVE', 'sync', 'hold', 'PASSIVE', 'release'])
    expect(out).toMatchObject({ passes: 4, complete: true, frames: 9000 })
    expect(out.heldMs).toBeGreaterThan(0)
  })

  test('a copy that never catches up is closed anyway after the last pass, so the WAL stays bounded', async () => {
    const s = scripted([{ ms: 500 }])
    await checkpointCycle(s.runner, s.hold)()
    expect(s.events.filter((e) => e === 'PASSIVE')).toHaveLength(MAX_PASSES + 1)
    expect(s.events.slice(-3)).toEqual(['hold', 'PASSIVE', 'release'])
  })

  test('nothing written since the last complete cycle holds nothing, until the idle WAL file is worth truncating', async () => {
    // cycle 1: a pass and the held tail; cycle 2: one idle pass; cycle 3: an idle pass, then TRUNCATE
    const s = scripted([{ log: 300 }, { log: 300 }, { log: 300 }, { log: 300, walBytes: TRIM_ABOVE_BYTES + 1 }, { log: 0, walBytes: 0 }])
    const cycle = checkpointCycle(s.runner, s.hold)
    await cycle()
    s.events.length = 0
    expect(await cycle()).toMatchObject({ heldMs: 0, trimmed: false })
    expect(s.events).toEqual(['PASSIVE'])
    s.events.length = 0
    expect(await cycle()).toMatchObject({ trimmed: true, complete: true })
    expect(s.events).toEqual(['PASSIVE', 'hold', 'TRUNCATE', 'release'])
  })

  test('an incomplete tail (a reader in the way) is not taken for done: the next cycle holds again', async () => {
    const s = scripted([{ log: 300, checkpointed: 200 }])
    const cycle = checkpointCycle(s.runner, s.hold)
    expect((await cycle()).complete).toBe(false)
    s.events.length = 0
    await cycle()
    expect(s.events).toContain('hold')
  })

  test('writes are released when the hold cap fires even though the checkpoint hangs, and after a failure', async () => {
    let released = 0
    const hold = () => () => released++
    const clock = manualTimers()
    let finishHeld!: (r: CheckpointResult) => void
    let heldStarted!: () => void
    const started = new Promise<void>((r) => (heldStarted = r))
    let runs = 0
    const hanging: Pick<CheckpointRunner, 'run' | 'sync'> = {
      // the first pass answers at once; the held one hangs until the test lets it go
      run: () =>
        runs++ === 0
          ? Promise.resolve(result({ log: 7 }))
          : new Promise((r) => {
              finishHeld = r
              heldStarted()
            }),
      sync: async () => {},
    }
    const stillHolding = checkpointCycle(hanging, hold, clock.timers)()
    await started
    expect(released).toBe(0)
    expect(clock.fire()).toBe(1) // the cap: MAX_HOLD_MS have passed
    expect(released).toBe(1)
    finishHeld(result({ log: 7 }))
    await stillHolding
    expect(released).toBe(1) // released once, not again when the run ended
    expect(clock.pending()).toBe(0)

    released = 0
    let calls = 0
    const failing: Pick<CheckpointRunner, 'run' | 'sync'> = {
      run: async () => {
        if (calls++ === 0) return result({ log: 5 })
        throw new Error('disk I/O error')
      },
      sync: async () => {},
    }
    await expect(checkpointCycle(failing, hold, clock.timers)()).rejects.toThrow('disk I/O error')
    expect(released).toBe(1)
  })
})

/** the WAL header's salts: SQLite draws new ones each time the WAL starts over */
function walSalt(dbPath: string): string {
  const fd = openSync(`${dbPath}-wal`, 'r')
  try {
    const header = Buffer.alloc(32)
    readSync(fd, header, 0, 32, 0)
    return header.subarray(16, 24).toString('hex')
  } finally {
    closeSync(fd)
  }
}

async function fileApp() {
  const path = join(tempDir('vigil-ckpt-'), 'vigil.db')
  const t = testApp({ db: openDatabase(path), config: { rateLimits: { free: 1e6, pro: 1e6, enterprise: 1e6, anonymous: 1e6 } } })
  const a = await tenantWithDevices(t)
  // the samples' records go to files beside the database; each group also writes the devices'
  // last_seen_at (every 30 s of the clock) into the database, the writes these tests checkpoint
  const send = (n: number) => {
    t.clock.advance(30_000)
    return Promise.all(
      Array.from({ length: n }, () =>
        t.request('POST', '/v1/metrics/batch', { body: { hardware: hardwareSample(), network: { upload_mbps: 1 } }, headers: a.keyHeaders }),
      ),
    )
  }
  const count = () => t.db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM metric_samples').get()!.n
  return { t, path, send, count }
}

/** A checkpointer whose cycles run when the test says: `await cycles(n)` runs n of them. */
function manualCheckpointer(opts: Omit<CheckpointerOptions, 'everyMs' | 'timers' | 'synchronous'>) {
  const clock = manualTimers()
  const cp = startCheckpointer({ synchronous: 'NORMAL', everyMs: 1_000, timers: clock.timers, ...opts })
  const cycles = async (n = 1) => {
    for (let i = 0; i < n; i++) {
      clock.fire()
      await cp.settled()
    }
  }
  return { cp, cycles }
}

describe('the checkpointer on a database file', () => {
  test('starts no thread before the first write', async () => {
    const { t } = await fileApp()
    const { logger } = memoryLogger()
    const { cp, cycles } = manualCheckpointer({ sqlite: t.db.sqlite, holdWrites: () => () => {}, logger })
    await cycles(3)
    expect(cp.where()).toBe('none')
    await cp.stop()
  })

  test('the worker thread copies the WAL back while writes go on, the WAL starts over, nothing is lost', async () => {
    const { t, path, send, count } = await fileApp()
    const { logger, lines } = memoryLogger()
    const { cp, cycles } = manualCheckpointer({ sqlite: t.db.sqlite, holdWrites: () => t.modules.metrics.writer.hold(), logger })
    await send(50)
    const firstSalt = walSalt(path)
    for (let i = 0; i < 20; i++) {
      const writes = send(25) // a cycle runs while these are being written
      await cycles()
      expect((await writes).every((r) => r.status === 201)).toBe(true)
    }
    await cycles(2)
    expect(cp.where()).toBe('worker')
    expect(walSalt(path)).not.toBe(firstSalt)
    const logged = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'wal checkpoint')
    expect(logged.length).toBeGreaterThan(0)
    expect(logged.every((c) => c.where === 'worker')).toBe(true)
    expect(logged.some((c) => c.complete)).toBe(true)
    await cp.stop()
    expect(count()).toBe(50 + 20 * 25)
    t.db.close()
    const fresh = new Database(path)
    createHotStore(fresh) // the samples not yet sealed are read from their records' files
    expect(fresh.query('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' })
    expect(fresh.query<{ n: number }, []>('SELECT count(*) AS n FROM metric_samples').get()!.n).toBe(50 + 20 * 25)
    fresh.close()
  })

  test('stops the thread after a quiet spell and starts it again on the next write', async () => {
    expect(idleCyclesBeforeStop(5_000)).toBe(6) // half a minute whatever the interval
    const { t, send } = await fileApp()
    const { logger } = memoryLogger()
    const { cp, cycles } = manualCheckpointer({ sqlite: t.db.sqlite, holdWrites: () => t.modules.metrics.writer.hold(), logger })
    await send(10)
    await cycles()
    expect(cp.where()).toBe('worker')
    await cycles(idleCyclesBeforeStop(1_000) - 1) // quiet cycles short of 30 s at one a second
    expect(cp.where()).toBe('worker')
    await cycles()
    expect(cp.where()).toBe('none')
    await send(10)
    await cycles()
    expect(cp.where()).toBe('worker')
    await cp.stop()
    t.db.close()
  })

  test('the worker truncates the WAL file on request', async () => {
    const { t, path, send } = await fileApp()
    await send(100)
    const runner = await workerRunner(path, 'NORMAL')
    try {
      const copied = await runner.run('PASSIVE')
      expect(copied.log).toBeGreaterThan(0)
      expect(copied.checkpointed).toBe(copied.log)
      expect((await runner.run('TRUNCATE')).walBytes).toBe(0)
    } finally {
      await runner.close()
      t.db.close()
    }
  })

  test('when the worker cannot start, checkpoints run inline and a warning says why', async () => {
    const { t, send } = await fileApp()
    const { logger, lines } = memoryLogger()
    const { cp, cycles } = manualCheckpointer({
      sqlite: t.db.sqlite,
      holdWrites: () => t.modules.metrics.writer.hold(),
      logger,
      startRunner: () => Promise.reject(new Error('no threads here')),
    })
    await send(20)
    await cycles()
    expect(cp.where()).toBe('inline')
    expect(lines.some((l) => l.includes('"level":"warn"') && l.includes('no threads here'))).toBe(true)
    const left = t.db.sqlite.query<{ log: number; checkpointed: number }, []>('PRAGMA wal_checkpoint(PASSIVE)').get()!
    expect(left.checkpointed).toBe(left.log) // the inline cycles already copied everything
    await cp.stop()
    t.db.close()
  })
})
