/**
 * `bun run bench --ratelimit-only`: what the shared rate limit costs, in-process (no sockets).
 *
 * 1. One take per engine: the memory limiter, Redis (VIGIL_BENCH_REDIS_URL, else
 *    VIGIL_TEST_REDIS_URL, else redis://127.0.0.1:6379) and PostgreSQL (a fresh database made on
 *    VIGIL_TEST_PG_URL and dropped after; skipped without it: the limiter's own pool of 4 with
 *    synchronous_commit off, and for comparison a pool committing synchronously), the store itself
 *    without the hub's 50 ms bound. "1 client": sequential takes on one key, the wall time of
 *    each; "200 clients": rounds of 200 takes at once on 200 keys, wall time and this process's
 *    CPU per take, and how many of them took longer than the bound (the hub would have
 *    answered those from its own limiter).
 * 2. Ingest with the real sample (what `dist/vigil agent --once` prints) through the whole app:
 *    200 devices (20 tenants × 10 keys) post it once per round, all of a round at once; one app
 *    with the memory limiter and one with the Redis limiter as the hub selects it (behind the
 *    fallback), rounds alternating in one run: CPU µs per request of this process, wall ms per
 *    round, redis-server's own CPU per request when its /proc entry is readable, and the
 *    fallbacks counted.
 * Keys are prefixed with this run's id, so a shared Redis keeps nothing of another's.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { RedisClient, SQL } from 'bun'
import { openDatabase } from '../../src/db/connection'
import { migratePostgres } from '../../src/db/pg/migrate'
import { memoryRateLimiter, type RateLimiter } from '../../src/http/rate-limiter'
import { postgresRateLimiter, rateLimitPool } from '../../src/http/rate-limiter.pg'
import { redisRateLimiter } from '../../src/http/rate-limiter.redis'
import { selectRateLimiter } from '../../src/http/rate-limiter.select'
import { SHARED_BOUND_MS } from '../../src/http/rate-limiter.fallback'
import { createLogger } from '../../src/lib/logger'
import { systemTimers } from '../../src/lib/timers'
import { log, quick, root } from './common'
import { inprocIngestWorld } from './inproc-world'
import { realSample } from './storage-samples'

const P = quick ? { sequential: 2_000, rounds: 20, ingestRounds: 6 } : { sequential: 10_000, rounds: 100, ingestRounds: 20 }
const redisUrl = process.env.VIGIL_BENCH_REDIS_URL ?? process.env.VIGIL_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
const run = `bench${process.pid}-${Date.now().toString(36)}:`
const logger = createLogger({ level: 'warn', format: 'json', write: (l) => console.error(l) })
let fallbacks = 0
const shared = (c: { redisUrl: string | null; databaseUrl: string | null }) =>
  selectRateLimiter({ ...c, logger, timers: systemTimers, onFallback: () => fallbacks++ })

const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const cpuUs = (c: NodeJS.CpuUsage) => c.user + c.system

interface TakeCost {
  engine: string
  oneClientUs: number
  manyWallUs: number
  manyCpuUs: number
  /** takes of the 200-client rounds slower than the hub's bound */
  overBound: number
  takes: number
}

async function takeCost(engine: string, limiter: RateLimiter): Promise<TakeCost> {
  const LIMIT = 1e9
  for (let i = 0; i < 500; i++) await limiter.take(`${run}${engine}:one`, LIMIT, Date.now()) // warm-up
  const t0 = performance.now()
  for (let i = 0; i < P.sequential; i++) await limiter.take(`${run}${engine}:one`, LIMIT, Date.now())
  const oneClientUs = ((performance.now() - t0) * 1000) / P.sequential
  const keys = Array.from({ length: 200 }, (_, i) => `${run}${engine}:c${i}`)
  const walls: number[] = []
  const cpus: number[] = []
  let overBound = 0
  for (let r = 0; r < P.rounds + 5; r++) {
    const c0 = process.cpuUsage()
    const w0 = performance.now()
    const took = await Promise.all(keys.map((k) => Promise.resolve(limiter.take(k, LIMIT, Date.now())).then(() => performance.now() - w0)))
    if (r < 5) continue // warm-up rounds
    walls.push(((performance.now() - w0) * 1000) / keys.length)
    cpus.push(cpuUs(process.cpuUsage(c0)) / keys.length)
    overBound += took.filter((ms) => ms > SHARED_BOUND_MS).length
  }
  return { engine, oneClientUs, manyWallUs: med(walls), manyCpuUs: med(cpus), overBound, takes: P.rounds * keys.length }
}

/** redis-server's CPU time so far (µs), from /proc, when it runs on this machine and is readable. */
async function redisCpu(): Promise<(() => number) | null> {
  const c = new RedisClient(redisUrl)
  try {
    const info = String(await c.send('INFO', ['server']))
    const pid = /process_id:(\d+)/.exec(info)?.[1]
    if (!pid) return null
    const read = () => {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
      return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100 // utime + stime, in clock ticks of 10 ms
    }
    read()
    return read
  } catch {
    return null
  } finally {
    c.close()
  }
}

async function ingestSide(label: string, limiter: RateLimiter, body: string, dir: string) {
  const db = openDatabase(join(dir, `${label}.db`))
  const { round, devices } = await inprocIngestWorld(db, body, { limiter, label })
  return { db, round, devices }
}

export async function ratelimitOnly() {
  const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
  log(`rate limit: load average ${load()}`)
  const costs: TakeCost[] = []
  costs.push(await takeCost('memory', memoryRateLimiter()))
  const rawRedis = redisRateLimiter(redisUrl)
  costs.push(await takeCost('redis', rawRedis))
  await rawRedis.close?.()
  let pgDrop: (() => Promise<void>) | null = null
  if (process.env.VIGIL_TEST_PG_URL) {
    const { postgresForTests } = await import('../../test/helpers/postgres')
    const fresh = await postgresForTests().freshDatabase('vigil_bench')
    pgDrop = fresh.drop
    const sql = new SQL(fresh.url, { max: 4 })
    await migratePostgres(sql, Date.now())
    // the limiter's own pool (synchronous_commit off) beside the same pool committing synchronously
    const pool = rateLimitPool(fresh.url)
    costs.push(await takeCost('postgresql', postgresRateLimiter(pool)))
    costs.push(await takeCost('postgresql, synchronous_commit on', postgresRateLimiter(sql)))
    await pool.close()
    await sql.close()
  } else log('postgresql skipped: VIGIL_TEST_PG_URL is not set')
  await pgDrop?.()

  const redis = shared({ redisUrl, databaseUrl: null })
  const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-ratelimit-'))
  const sample = JSON.stringify(await realSample(join(root, 'dist/vigil')))
  const sides = [
    { label: 'memory', ...(await ingestSide('memory', memoryRateLimiter(), sample, dir)), cpu: [] as number[], wall: [] as number[], redis: [] as number[] },
    { label: 'redis', ...(await ingestSide('redis', redis, sample, dir)), cpu: [] as number[], wall: [] as number[], redis: [] as number[] },
  ]
  const redisCpuNow = await redisCpu()
  for (let i = 0; i < 5; i++) for (const s of sides) await s.round() // warm-up
  const fallbacksBefore = fallbacks
  for (let i = 0; i < P.ingestRounds; i++) {
    for (const s of i % 2 ? [...sides].reverse() : sides) {
      s.db.sqlite.run('PRAGMA wal_checkpoint(TRUNCATE)')
      const r0 = redisCpuNow?.() ?? 0
      const c0 = process.cpuUsage()
      const w0 = performance.now()
      await s.round()
      s.wall.push(performance.now() - w0)
      s.cpu.push(cpuUs(process.cpuUsage(c0)) / s.devices)
      if (redisCpuNow) s.redis.push(redisCpuNow() - r0)
    }
  }
  for (const s of sides) s.db.close()
  await redis.close?.()
  rmSync(dir, { recursive: true, force: true })

  const us = (n: number) => `${n.toFixed(1)} µs`
  const ingestFallbacks = fallbacks - fallbacksBefore
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)
  console.log(`\nrate limit — ${navigator.hardwareConcurrency} cores, bun ${Bun.version}, load average ${load()}${quick ? ' (--quick)' : ''}\n`)
  console.log(
    `| engine | 1 client: wall per take | 200 clients at once: wall per take | 200 clients: CPU of the hub per take | takes over ${SHARED_BOUND_MS} ms |\n|---|---|---|---|---|`,
  )
  for (const c of costs) console.log(`| ${c.engine} | ${us(c.oneClientUs)} | ${us(c.manyWallUs)} | ${us(c.manyCpuUs)} | ${c.overBound} of ${c.takes} |`)
  console.log(
    `\n| ingest, real sample (${sample.length} B), 200 devices per round, ${P.ingestRounds} rounds each | hub CPU per request | wall per round | redis-server CPU per request |\n|---|---|---|---|`,
  )
  // redis-server's CPU in 10 ms ticks: summed over the rounds, not per round
  for (const s of sides)
    console.log(
      `| ${s.label} limiter | ${us(med(s.cpu))} | ${med(s.wall).toFixed(1)} ms | ${s.redis.length ? us(sum(s.redis) / (s.devices * s.redis.length)) : '–'} |`,
    )
  console.log(`\nfallbacks to the local limiter during the ingest rounds: ${ingestFallbacks}`)
}
