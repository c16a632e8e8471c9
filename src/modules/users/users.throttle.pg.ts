import type { SQL } from 'bun'
import type { Clock } from '../../lib/clock'
import { num, type Raw } from '../../db/pg/rows'
import { type LoginThrottle, type ThrottlePolicy, waitOf } from './users.throttle'

/** The row still counts at $2 (the rule of users.throttle.ts's entryLive). */
const LIVE = '($2::bigint - t.last_failure <= greatest($6::bigint, t.locked_until - t.last_failure))'
/** the failures after this one */
const COUNT = `(CASE WHEN ${LIVE} THEN t.failures + 1 ELSE 1 END)`
/** lockoutAfter(failures, now, policy) of users.throttle.ts, for `failures` */
const lockout = (failures: string) =>
  `(CASE WHEN ${failures} >= $3::bigint THEN $2::bigint + least($5::float8, $4::float8 * power(2::float8, least(${failures} - $3::bigint, 60)))::bigint ELSE 0 END)`

/**
 * One failure as one statement, atomic under the row's lock whichever hub sends it: a new key
 * starts at one failure; a known one counts on, or starts again once its failures are forgotten.
 * Parameters: key, now, free, base, max, window.
 */
const FAIL = `INSERT INTO login_throttle AS t (key, failures, last_failure, locked_until)
VALUES ($1, 1, $2::bigint, ${lockout('1')})
ON CONFLICT (key) DO UPDATE SET
  failures = ${COUNT},
  locked_until = CASE WHEN ${COUNT} >= $3::bigint THEN ${lockout(COUNT)} WHEN ${LIVE} THEN t.locked_until ELSE 0 END,
  last_failure = greatest(t.last_failure, $2::bigint)`

/** Rows past their window and their lockout count as nothing: deleting them changes no answer. */
const FORGET = 'DELETE FROM login_throttle WHERE $1::bigint - last_failure > greatest($2::bigint, locked_until - last_failure)'

/**
 * The login throttle in PostgreSQL (the login_throttle table, src/db/pg/login-throttle.table.ts),
 * shared by every hub on the database: N hubs behind a proxy allow what one hub allows. `scope`
 * keeps the account and the address counts apart. Each instance forgets finished rows once a
 * window, before the failure it counts.
 */
export function postgresThrottle(sql: SQL, clock: Clock, policy: ThrottlePolicy, scope: string): LoginThrottle {
  const keyOf = (key: string) => `${scope}:${key}`
  let forgotAt = Number.NEGATIVE_INFINITY
  return {
    async retryAfterMs(key) {
      const [row] = (await sql`SELECT failures, last_failure, locked_until FROM login_throttle WHERE key = ${keyOf(key)}`) as Raw[]
      const now = clock.now()
      return waitOf(row ? { failures: num(row.failures), lastFailure: num(row.last_failure), lockedUntil: num(row.locked_until) } : null, now, policy)
    },
    async fail(key) {
      const now = clock.now()
      if (now - forgotAt >= policy.windowMs) {
        forgotAt = now
        // once a window, so one failure in many waits for it; a failed sweep is tried a window later
        await sql.unsafe(FORGET, [now, policy.windowMs]).catch(() => {})
      }
      await sql.unsafe(FAIL, [keyOf(key), now, policy.free, policy.baseMs, policy.maxMs, policy.windowMs])
    },
    async reset(key) {
      await sql`DELETE FROM login_throttle WHERE key = ${keyOf(key)}`
    },
  }
}
