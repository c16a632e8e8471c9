/**
 * Reads one `vigil agent --once` sample on stdin and checks it the way the hub would: with
 * BatchMetricIn's body reader, plus what makes it a real reading (a recent recorded_at, a CPU
 * percentage from two readings, at least one filesystem, network counters). Exit 1 says why not.
 *   qemu-aarch64-static dist/release/vigil-linux-arm64 agent --once | bun scripts/check-sample.ts
 */
import { bodyReader } from '../src/http/input'
import { BatchMetricIn } from '../src/modules/metrics/metrics.model'

const text = await Bun.stdin.text()
const fail = (why: string): never => {
  console.error(`check-sample: ${why}\n${text.slice(0, 2000)}`)
  process.exit(1)
}
interface Sample {
  recorded_at: string
  hardware?: { cpu_percent?: unknown; cpu_count_logical?: number; disk_partitions?: unknown[] }
  network?: { bytes_recv_total?: unknown }
}
let sample: Sample
try {
  sample = JSON.parse(text)
} catch (err) {
  fail(`not JSON: ${(err as Error).message}`)
}
try {
  bodyReader(BatchMetricIn)(structuredClone(sample!))
} catch (err) {
  fail(`the hub would refuse it: ${JSON.stringify((err as { detail?: unknown }).detail ?? (err as Error).message)}`)
}
const s = sample!
const age = Date.now() - Date.parse(s.recorded_at)
if (!(age >= -60_000 && age < 300_000)) fail(`recorded_at ${s.recorded_at} is not now`)
if (typeof s.hardware?.cpu_percent !== 'number') fail('no cpu_percent')
if (!s.hardware?.disk_partitions?.length) fail('no filesystem')
if (typeof s.network?.bytes_recv_total !== 'number') fail('no network counters')
console.log(
  `check-sample: a valid sample (cpu ${s.hardware!.cpu_percent}% of ${s.hardware!.cpu_count_logical} cores, ${s.hardware!.disk_partitions!.length} filesystems)`,
)
