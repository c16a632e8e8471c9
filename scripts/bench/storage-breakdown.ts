/**
 * Where the bytes written per sample go, in process: the real ingest path (testApp on a database
 * file) with 100 devices posting one sample each per round, a passive checkpoint after every
 * round as the hub's checkpointer does each second, then the rollup job and the sealing job, each
 * measured by write_bytes of /proc/self/io. `bun scripts/bench/storage-breakdown.ts [sample.json] [rounds]`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/connection'
import type { BlockStore } from '../../src/modules/metrics/metrics.block.store'
import { createHotStore } from '../../src/modules/metrics/metrics.hot.store'
import { runRollup } from '../../src/modules/metrics/metrics.jobs'
import { testApp } from '../../test/helpers/app'
import { postEach, tenantWithDevices } from '../../test/helpers/metrics'
import { evolve, type Sample } from './storage-samples'

const writeBytes = () => Number(/write_bytes:\s*(\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))![1])

export async function breakdown(base: Sample, opts: { devices: number; rounds: number; hoursAgo: number }) {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-breakdown-'))
  try {
    const db = openDatabase(join(dir, 'vigil.db'))
    db.sqlite.run('PRAGMA wal_autocheckpoint = 0')
    const t = testApp({ db, config: { rateLimits: { anonymous: 1e9, free: 1e9, pro: 1e9, enterprise: 1e9 } } as never })
    const T = Date.UTC(2026, 0, 1)
    t.clock.set(T)
    const a = await tenantWithDevices(t, opts.devices)
    const start = T - opts.hoursAgo * 3_600_000 - opts.rounds * 10_000
    const bodies = evolve(base, opts.rounds, start, 10_000, 5).map((s) => JSON.stringify(s))
    const checkpoint = () => db.sqlite.run('PRAGMA wal_checkpoint(PASSIVE)')
    checkpoint()
    const w0 = writeBytes()
    for (let r = 0; r < opts.rounds; r++) {
      await postEach(t, a, () => bodies[r]!)
      t.clock.advance(1000)
      checkpoint()
    }
    const w1 = writeBytes()
    // the records' files: their bytes per record, frames included
    const files = createHotStore(db.sqlite).stats()
    const hot = { n: files.records, avg: files.bytes / Math.max(1, files.records) }
    t.clock.set(T + opts.rounds * 1000 + 60_000)
    await runRollup(t.modules.metricsJobs)
    checkpoint()
    const w2 = writeBytes()
    const blocks = t.modules.metricsJobs.blocks as BlockStore
    const dropHot = blocks.dropHot
    blocks.dropHot = () => 0 // measured on its own below
    await t.modules.sealer.run()
    checkpoint()
    const w3 = writeBytes()
    blocks.dropHot = dropHot
    blocks.dropHot()
    checkpoint()
    const w4 = writeBytes()
    const kept =
      db.sqlite
        .query<{ b: number }, []>(
          "SELECT sum(pgsize) AS b FROM dbstat WHERE name IN ('metric_samples', 'metric_samples_device_ts', 'metric_blocks', 'sqlite_autoindex_metric_blocks_1', 'metric_block_index', 'sqlite_autoindex_metric_block_index_1', 'metric_block_index_file')",
        )
        .get()!.b + blocks.fileBytes() // the blocks' bytes and their minutes, in files beside the database
    const samples = opts.devices * opts.rounds
    db.close()
    return {
      samples,
      record: Math.round(hot.avg),
      ingest: (w1 - w0) / samples,
      rollup: (w2 - w1) / samples,
      seal: (w3 - w2) / samples,
      dropHot: (w4 - w3) / samples,
      keptPages: kept / samples,
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.main) {
  const base = JSON.parse(readFileSync(process.argv[2] ?? '/dev/stdin', 'utf8')) as Sample
  delete base.recorded_at
  const rounds = Number(process.argv[3] ?? 30)
  console.log('hours ago 2', await breakdown(base, { devices: 100, rounds, hoursAgo: 2 }))
  console.log('now', await breakdown(base, { devices: 100, rounds, hoursAgo: 0 }))
}
