/**
 * What sealing's sync costs the event loop: a batch of 64 blocks of ~12 KB and their minutes
 * appended to a block file by one write and synced (fdatasync), as metrics.block.log.ts does
 * before the transaction pointing to them, 30 times on a temp dir of this machine's disk.
 * `bun scripts/bench/storage-sync.ts [dir]`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createHotLog } from '../../src/modules/metrics/metrics.hot.log'
import { fileSegments } from '../../src/modules/metrics/metrics.segment-files'

const dir = mkdtempSync(join(process.argv[2] ?? tmpdir(), 'vigil-sync-'))
try {
  const log = createHotLog(fileSegments(dir), { sync: true })
  const block = crypto.getRandomValues(new Uint8Array(12_000))
  const ms: number[] = []
  for (let r = 0; r < 30; r++) {
    for (let i = 0; i < 64; i++) {
      log.append(r % 2, block)
      log.append(r % 2, block.subarray(0, 800))
    }
    const t = performance.now()
    log.persist()
    log.done()
    ms.push(performance.now() - t)
  }
  log.close()
  ms.sort((a, b) => a - b)
  const load = (await Bun.file('/proc/loadavg').text()).split(' ')[0]
  console.log(`write + fdatasync of 64 blocks (830 KB): p50 ${ms[15]!.toFixed(1)} ms, max ${ms[29]!.toFixed(1)} ms; load average ${load}`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
