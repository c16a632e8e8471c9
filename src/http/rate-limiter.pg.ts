import { SQL } from 'bun'
import type { TakeResult } from '../lib/token-bucket'
import { type RateLimiter, takeResult, WINDOW_MS } from './rate-limiter'

/** The bucket after its refill: the same arithmetic, in the same order, as lib/token-bucket.ts. */
const REFILLED = `least($2::float8, least(b.tokens, $2::float8) + (greatest(0, $3::bigint - b.updated_at)::float8 * $2::float8) / ${WINDOW_MS})`

/**
 * One take as one statement, atomic under the row's lock: a new client gets a full bucket less
 * the token it takes; a known one refills and takes. RETURNING sees only new values, hence the
 * `allowed` column. The last take's time never moves back (see the Redis script for why).
 */
const TAKE = `INSERT INTO rate_limit_buckets AS b (key, tokens, updated_at, allowed)
VALUES ($1, CASE WHEN $2::float8 >= 1 THEN $2::float8 - 1 ELSE $2::float8 END, $3::bigint, $2::float8 >= 1)
ON CONFLICT (key) DO UPDATE SET
  tokens = ${REFILLED} - CASE WHEN ${REFILLED} >= 1 THEN 1 ELSE 0 END,
  allowed = ${REFILLED} >= 1,
  updated_at = greatest(b.updated_at, $3::bigint)
RETURNING tokens, allowed`

/** A bucket untouched for a window is full: forgetting it changes no answer. */
const FORGET = 'DELETE FROM rate_limit_buckets WHERE updated_at < $1::bigint'

/**
 * The limiter's own connections: a few, so that a take never queues behind the hub's other
 * queries, with synchronous_commit off, so that a take does not wait for its commit to reach
 * the disk. A crash of the server may lose the last moments of takes: a client then finds a
 * little more budget than it had, which is all a rate limit can lose.
 */
export function rateLimitPool(url: string, max = 4): SQL {
  return new SQL(url, { max, connectionTimeout: 5, connection: { synchronous_commit: 'off', application_name: 'vigil-ratelimit' } })
}

/**
 * The rate limit in PostgreSQL (the rate_limit_buckets table, src/db/pg/ratelimit.table.ts),
 * shared by every hub on the database. Each instance forgets idle rows once a window, in the
 * background of a take, so the table holds about one window's worth of callers. `close` ends
 * the pool when it was made for the limiter (rateLimitPool).
 */
export function postgresRateLimiter(sql: SQL, opts: { ownsPool?: boolean } = {}): RateLimiter {
  let forgotAt = Number.NEGATIVE_INFINITY

  function forget(now: number) {
    forgotAt = now
    // not awaited: a take does not wait for the sweep, and a failed one is retried a window later
    sql.unsafe(FORGET, [now - WINDOW_MS]).catch(() => {})
  }

  return {
    async take(key, limitPerMinute, now): Promise<TakeResult> {
      // the take first: it gets the pool's idle connection, the sweep waits for or opens another
      const taken = sql.unsafe(TAKE, [key, limitPerMinute, now])
      if (now - forgotAt >= WINDOW_MS) forget(now)
      const [row] = (await taken) as { tokens: number; allowed: boolean }[]
      return takeResult(row!.allowed, Number(row!.tokens), limitPerMinute, now)
    },
    async close() {
      if (opts.ownsPool) await sql.close()
    },
  }
}
