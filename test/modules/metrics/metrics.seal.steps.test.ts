import { describe, expect, test } from 'bun:test'
import { manualClock } from '../../../src/lib/clock'
import { memoryLogger } from '../../../src/lib/logger'
import { SEAL_BATCH_REST_CHARS, createSealer, type SealDeps } from '../../../src/modules/metrics/metrics.seal'

/**
 * The sealing job's steps, in the order they run, with its pauses (where reads waiting on the
 * event loop get their turn) between them. Blocks stand in for the store: the steps are what is tested.
 */
function recorded(blocksToSeal: number, restChars = 0) {
  const steps: string[] = []
  let left = blocksToSeal
  /** a step recorded, answering `v` */
  const step = <T>(name: string, v: T): T => {
    steps.push(name)
    return v
  }
  const blocks: SealDeps['blocks'] = {
    dropOrphans: () => step('dropOrphans', 0),
    sweep: async () => step('sweep', undefined),
    wipe: () => step('wipe', 0),
    firstUnsealed: (_seq, from) => step('check', left > 0 ? Math.max(from, 0) : null),
    prepare: (seq, start) => {
      left--
      return step('prepare', { seq, start, restChars } as never)
    },
    commit: async (batch) => step(`commit ${batch.length}`, { samples: batch.length, stale: [] }),
    dropHot: () => step('dropHot', 0),
  }
  const sealer = createSealer({
    blocks,
    devices: { seqs: () => [1] },
    writer: { takeWrittenSince: () => new Map() },
    clock: manualClock(Date.UTC(2026, 0, 1)),
    logger: memoryLogger().logger,
    pause: async () => void steps.push('pause'),
  })
  return { sealer, steps }
}

describe('a sealing run yields between its steps', () => {
  test('the first run after a start: between the dropped orphans, the sweep and the wipe, the blocks, and the hot records dropped', async () => {
    const { sealer, steps } = recorded(2)
    await sealer.run()
    expect(steps).toEqual([
      'dropOrphans',
      'pause',
      'sweep',
      'wipe',
      'pause',
      'check',
      'prepare',
      'pause',
      'check',
      'prepare',
      'pause',
      'check',
      'commit 2',
      'pause',
      'dropHot',
    ])
  })

  test('a later run with nothing to seal: the wipe and the hot records dropped are steps of their own', async () => {
    const { sealer, steps } = recorded(0)
    await sealer.run()
    steps.length = 0
    await sealer.run()
    // the device's mark is where the first run stopped: nothing new is due, so nothing is looked up
    expect(steps).toEqual(['wipe', 'pause', 'pause', 'dropHot'])
  })

  test("an earlier release's rows, whose texts are rewritten as they are sealed, are written a few blocks at a time", async () => {
    // blocks of hot samples go 64 to a transaction; blocks of rows with their own texts (216 KB
    // for 60 samples of the real sample) go once their texts pass the bound
    const { sealer, steps } = recorded(5, SEAL_BATCH_REST_CHARS / 2)
    await sealer.run()
    expect(steps.filter((s) => s.startsWith('commit'))).toEqual(['commit 2', 'commit 2', 'commit 1'])
    const hot = recorded(5)
    await hot.sealer.run()
    expect(hot.steps.filter((s) => s.startsWith('commit'))).toEqual(['commit 5'])
  })
})
