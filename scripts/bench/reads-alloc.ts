/**
 * `bun scripts/bench/reads-alloc.ts <data dir> [--n N] [--cases a,b]`: how many young-generation collections
 * the reads' own allocations cause, in process, on the data dir `bun run bench --reads-only
 * --reads-data <dir>` seeded (the hub stopped): N history pages (newest, and a day back), their
 * rows read alone, then written as JSON bytes and made into a Response as the route makes it, and pages at random
 * offsets in the month (their blocks decoded); N summaries of 24 h
 * and 168 h (one kind), reading their stored rollup rows afresh and kept between requests. Each
 * case runs in a process of its own started with JavaScriptCore's collection log
 * (BUN_JSC_logGC), which this counts. Opened read and write: the connection's temporary tables
 * and triggers are its own, and nothing is written to the file.
 */
import { readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/connection'
import { JsonBytes } from '../../src/lib/json-bytes'
import { writePage } from '../../src/modules/metrics/metrics.rows'
import { stepsAwait } from '../../src/modules/metrics/metrics.steps'
import { sqliteMetricsReads } from '../../src/modules/metrics/metrics.reads'
import { createMetricsStore } from '../../src/modules/metrics/metrics.store'
import { levelForHours, summarizeKind } from '../../src/modules/metrics/metrics.summary'
import { createTierRowsCache } from '../../src/modules/metrics/metrics.summary.cache'

const argv = process.argv.slice(2)
const dir = argv[0]
if (!dir || dir.startsWith('--')) throw new Error('usage: bun scripts/bench/reads-alloc.ts <data dir> [--n N]')
const nAt = argv.indexOf('--n')
const N = nAt === -1 ? 1000 : Number(argv[nAt + 1])
const CASES = [
  'page rows, newest',
  'page rows and answer, newest',
  'page rows, a day back',
  'page rows and answer, a day back',
  'page rows and answer, a random offset in 30 days',
  'summary 24 h, rows read afresh',
  'summary 24 h, rows kept',
  'summary 168 h, rows read afresh',
  'summary 168 h, rows kept',
] as const
type Case = (typeof CASES)[number]
const MARK = 'reads-alloc: measured'

/** One case in this process: warm up, then N times, the log's collections between two marks. */
async function one(name: Case) {
  const world = JSON.parse(readFileSync(join(dir!, 'seeded.json'), 'utf8')) as { tenant: { devices: { seq: number }[] } }
  const seq = world.tenant.devices[0]!.seq
  const db = openDatabase(join(dir!, 'vigil.db'))
  const store = createMetricsStore(db.sqlite)
  const out = new JsonBytes()
  const MAX = Number.MAX_SAFE_INTEGER
  const now = Date.now()
  const samples = store.count('hardware', seq, 0, MAX)
  const page = (offset: number | null, answer: boolean) => () => {
    // an answer's rows are read as the hub reads them for one (sealed rows' texts left in their blocks)
    const rows = store.page('hardware', seq, 0, MAX, 120, offset ?? Math.floor(Math.random() * (samples - 120)), answer)
    // made into a Response as the route makes it: lent from the shared buffer, the Response copies it
    if (answer) new Response(writePage(out.reset(), 'hardware', rows, 'dev').lend())
  }
  const summary = (hours: number, kept: boolean) => {
    const reads = sqliteMetricsReads(store, kept ? createTierRowsCache(db.sqlite) : undefined)
    return () => stepsAwait(summarizeKind('hardware', seq, now - hours * 3_600_000, now + 1, levelForHours(hours), now), reads)
  }
  const run: Record<Case, () => unknown> = {
    'page rows, newest': page(0, false),
    'page rows and answer, newest': page(0, true),
    'page rows, a day back': page(8_640, false),
    'page rows and answer, a day back': page(8_640, true),
    'page rows and answer, a random offset in 30 days': page(null, true),
    'summary 24 h, rows read afresh': summary(24, false),
    'summary 24 h, rows kept': summary(24, true),
    'summary 168 h, rows read afresh': summary(168, false),
    'summary 168 h, rows kept': summary(168, true),
  }
  for (let i = 0; i < 100; i++) await run[name]()
  console.error(MARK)
  const t0 = performance.now()
  for (let i = 0; i < N; i++) await run[name]()
  const ms = (performance.now() - t0) / N
  console.error(MARK)
  console.log(JSON.stringify({ ms }))
  db.close()
}

const only = argv.includes('--cases') ? argv[argv.indexOf('--cases') + 1]!.split(',') : null
if (process.env.READS_ALLOC_CASE) await one(process.env.READS_ALLOC_CASE as Case)
else {
  console.log(`reads-alloc: ${N} each, load average ${loadavg()[0]!.toFixed(2)}\n`)
  console.log('| case | young collections | full collections | their pauses in all (ms) | ms each (logging on) |\n|---|---|---|---|---|')
  for (const name of CASES) {
    if (only && !only.some((o) => name.includes(o))) continue
    const proc = Bun.spawn([process.execPath, import.meta.path, dir, '--n', String(N)], {
      env: { ...process.env, BUN_JSC_logGC: '1', READS_ALLOC_CASE: name },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()])
    await proc.exited
    const measured = stderr.split(MARK)[1] ?? ''
    const eden = measured.match(/=> EdenCollection/g)?.length ?? 0
    const full = measured.match(/=> FullCollection/g)?.length ?? 0
    const paused = [...measured.matchAll(/ p=([\d.]+)ms/g)].reduce((a, m) => a + Number(m[1]), 0)
    const { ms } = JSON.parse(stdout.trim().split('\n').pop()!) as { ms: number }
    console.log(`| ${name} | ${eden} | ${full} | ${paused.toFixed(1)} | ${ms.toFixed(3)} |`)
  }
}
