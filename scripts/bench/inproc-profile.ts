/**
 * Where an ingest request's CPU goes, from a CPU profile of the in-process bench:
 *
 *   bun --cpu-prof --cpu-prof-interval=250 --cpu-prof-dir=/tmp/prof scripts/bench/inproc-real.ts 500
 *   bun scripts/bench/inproc-profile.ts /tmp/prof/*.cpuprofile [µs per request]
 *
 * Each sample is given to the first part below found on its stack (most specific first); the
 * set-up (migrations, devices, keys) and the checkpoints between rounds are left out. With the
 * CPU per request of the run (its mean), each share is also printed in µs.
 */

export {}

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}

const PARTS: [string, RegExp][] = [
  ['record coding (metrics.hot.ts: text, zstd against the previous record)', /^encodeHot /],
  ['hot row insert (the in-memory mirror, SQLite)', /^insert metrics\/metrics\.hot\.rows/],
  ['hot store append, other (frame, chains, journal)', /^append metrics\/metrics\.hot\.store/],
  ['metric writer, other (lookups, BEGIN/COMMIT, savepoints, notes)', /^commitGroup |^writeOne /],
  ['sample rows (toSampleRow: hot values, the rest re-serialised)', /^batchRows /],
  ['containers block (a block that changes nothing is answered at once; the alert rules are told of it)', /containers\.ingest|composition\/containers/],
  ['live stream and presence (the event bus, its data made only when read)', /composition\/live\.ts/],
  ['alert rules', /alerts/],
  ['JSON.parse and depth check', /^parseRequestBody /],
  ['admission (request id, API key, rate limit)', /^admit http/],
  ['body check (compiled TypeBox)', /metrics\.routes\.ts/],
  ['answer (JSON, Response)', /^json http\/direct-routes/],
  ['route and service, other', /^ingestBatch |direct-routes|composition\/hooks/],
  ['bench harness (Request objects)', /inproc-world|inproc-real/],
]
const SETUP = /inprocIngestWorld|testApp |migrate db/

const [file, perRequest] = [process.argv[2], Number(process.argv[3] ?? 0)]
if (!file) throw new Error('usage: bun scripts/bench/inproc-profile.ts <file.cpuprofile> [µs per request]')
const profile = (await Bun.file(file).json()) as { nodes: ProfileNode[]; samples: number[] }
const nodes = new Map(profile.nodes.map((n) => [n.id, n]))
const parent = new Map<number, number>()
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
const name = (n: ProfileNode) => `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`

const counts = new Map<string, number>()
let counted = 0
for (const leaf of profile.samples) {
  const stack: string[] = []
  for (let at: number | undefined = leaf; at !== undefined; at = parent.get(at)) stack.push(name(nodes.get(at)!))
  if (stack.some((f) => SETUP.test(f))) continue
  // a statement the bench runs itself between rounds (the checkpoint)
  const caller = stack.slice(1).find((f) => !f.startsWith('#') && !f.includes('bun:sqlite'))
  if (stack[0] === 'run :-1' && caller?.includes('inproc-real')) continue
  const part = PARTS.find(([, re]) => stack.some((f) => re.test(f)))?.[0] ?? 'other (garbage collection, event loop)'
  counts.set(part, (counts.get(part) ?? 0) + 1)
  counted++
}
for (const [part, n] of [...counts].sort((a, b) => b[1] - a[1])) {
  const share = (100 * n) / counted
  console.log(`${share.toFixed(1).padStart(5)} %${perRequest ? `  ${((perRequest * n) / counted).toFixed(1).padStart(5)} µs` : ''}  ${part}`)
}
