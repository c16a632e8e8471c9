/**
 * What handing a group's record texts to a worker thread and taking their coded bytes back costs
 * the event loop: `bun scripts/bench/inproc-worker.ts [sample.json]`. Groups of 64 texts of the
 * real sample's record size go to a worker that answers 300 B per text (as a record's coding
 * would, without coding: only the hand-off is measured), one group at a time; the main thread's
 * own CPU time (from /proc/thread-self) per record, as strings and as UTF-8 bytes moved over.
 */
import { readFileSync } from 'node:fs'
import { isMainThread, parentPort, Worker } from 'node:worker_threads'

const GROUPS = 3000
const SIZE = 64

if (!isMainThread) {
  parentPort!.on('message', (texts: unknown[]) => {
    const out = texts.map(() => new Uint8Array(300))
    parentPort!.postMessage(
      out,
      out.map((b) => b.buffer),
    )
  })
} else {
  /** this thread's CPU time so far, µs (clock ticks of 10 ms: runs are seconds long) */
  const threadUs = () => {
    const f = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1]!.split(' ')
    return (Number(f[11]) + Number(f[12])) * 10_000
  }
  const file = process.argv[2]
  const sample = file ? readFileSync(file, 'utf8') : JSON.stringify({ hardware: { text: 'x'.repeat(3000) } })
  const text = sample.slice(0, 3100)
  const worker = new Worker(new URL(import.meta.url).pathname)
  const enc = new TextEncoder()
  const roundTrip = (msg: unknown, transfer: ArrayBuffer[]) =>
    new Promise<void>((resolve) => {
      worker.once('message', () => resolve())
      worker.postMessage(msg, transfer)
    })
  await roundTrip([], [])
  for (const mode of ['strings', 'bytes'] as const) {
    const group = (g: number) => Array.from({ length: SIZE }, (_, i) => `${text}${g}.${i}`)
    const t0 = threadUs()
    for (let g = 0; g < GROUPS; g++) {
      const texts = group(g)
      if (mode === 'strings') await roundTrip(texts, [])
      else {
        const bytes = texts.map((t) => enc.encode(t))
        await roundTrip(
          bytes,
          bytes.map((b) => b.buffer as ArrayBuffer),
        )
      }
    }
    const withHandOff = threadUs() - t0
    const t1 = threadUs()
    for (let g = 0; g < GROUPS; g++) {
      const texts = group(g)
      if (mode === 'bytes') texts.map((t) => enc.encode(t))
    }
    const alone = threadUs() - t1
    console.log(`${mode}: ${((withHandOff - alone) / (GROUPS * SIZE)).toFixed(2)} µs of the event loop's CPU per record for the hand-off`)
  }
  await worker.terminate()
}
