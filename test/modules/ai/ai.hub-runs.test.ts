import { describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { manualClock } from '../../../src/lib/clock'
import { hubRuns, hubRunsFile, type HubRunsStorage } from '../../../src/modules/ai/ai.hub-runs'

const memory = (): HubRunsStorage & { text: string | null } => ({
  text: null,
  read() {
    return this.text
  },
  write(text) {
    this.text = text
  },
})

describe("the hub's own runs", () => {
  test('the time between one run’s last sign of life and the next start is a gap, kept across restarts', () => {
    const clock = manualClock()
    const storage = memory()
    const t0 = clock.now()
    const first = hubRuns({ clock, storage })
    clock.advance(60_000)
    first.beat()
    clock.advance(30_000) // dies 30 s after its last beat
    clock.advance(120_000) // down for two minutes
    const second = hubRuns({ clock, storage })
    expect(second.gaps(t0, clock.now())).toEqual([{ from: t0 + 60_000, to: t0 + 210_000 }])
    // a third start, later: both gaps, each only when asked about its time
    clock.advance(3600_000)
    second.beat()
    clock.advance(600_000)
    const third = hubRuns({ clock, storage })
    expect(third.gaps(t0, clock.now())).toHaveLength(2)
    expect(third.gaps(t0 + 300_000, clock.now())).toEqual([{ from: t0 + 210_000 + 3600_000, to: clock.now() }])
    expect(third.gaps(clock.now() + 1, clock.now() + 2)).toEqual([])
  })

  test('runs older than the rules look back are forgotten; a damaged or unreadable record starts afresh', () => {
    const clock = manualClock()
    const storage = memory()
    hubRuns({ clock, storage })
    clock.advance(9 * 86_400_000)
    const later = hubRuns({ clock, storage })
    expect(later.gaps(0, clock.now())).toEqual([])
    expect(JSON.parse(storage.text!)).toHaveLength(1)
    storage.text = '{not json'
    expect(hubRuns({ clock, storage }).gaps(0, clock.now())).toEqual([])
    const broken: HubRunsStorage = {
      read: () => {
        throw new Error('EACCES')
      },
      write: () => {
        throw new Error('ENOSPC')
      },
    }
    expect(() => hubRuns({ clock, storage: broken }).beat()).not.toThrow()
  })

  test('kept in hub-runs.json beside the database file; none for a database in memory', () => {
    expect(hubRunsFile(':memory:')).toBeNull()
    const dir = mkdtempSync(join(tmpdir(), 'vigil-runs-'))
    const storage = hubRunsFile(join(dir, 'vigil.db'))!
    expect(storage.read()).toBeNull()
    const clock = manualClock()
    hubRuns({ clock, storage })
    expect(JSON.parse(readFileSync(join(dir, 'hub-runs.json'), 'utf8'))).toEqual([[clock.now(), clock.now()]])
    writeFileSync(join(dir, 'hub-runs.json'), '[[1,2]]')
    expect(storage.read()).toBe('[[1,2]]')
  })
})
