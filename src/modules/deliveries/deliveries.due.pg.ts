import type { SQL } from 'bun'
import { claimStatement, type PgQueue } from './deliveries.claim.pg'
import type { Job } from './deliveries.due'
import type { SlotCaps, Slots } from './deliveries.slots'
import type { Claims } from './deliveries.worker'

/**
 * How long a claimed delivery is this worker's (ms): longer than any attempt's deadline, so that
 * a live worker never loses a row it is sending; the longest a dead worker's rows wait.
 */
export const DELIVERY_LEASE_MS = 5 * 60_000
/** rows read per account and claim at most (as the SQLite claim's) */
const MAX_FETCH = 64

/** A delivery claimed on PostgreSQL: the worker's until `leaseUntil`. */
export interface PgClaimed extends Job {
  /** when the claim runs out; also the token that the result, or a release, is written with */
  leaseUntil: number
}

export interface ClaimBatch {
  now: number
  /** rows this worker can start (its free slots) */
  limit: number
  /** in flight at once, counted over every hub */
  caps: Pick<SlotCaps, 'perAccount' | 'perDestination'>
  /** the account this worker served last: the round starts after it */
  after: string | null
  leaseMs?: number
}

/**
 * The claim of a delivery queue on PostgreSQL (channel_deliveries or webhook_deliveries: see
 * PG_QUEUES), for workers on several hubs: one statement per batch (deliveries.claim.pg.ts) that
 * chooses by the SQLite claim's fairness rule, locks with FOR UPDATE SKIP LOCKED and marks the
 * rows sending with a lease, so that no two workers take one delivery and a dead worker's rows
 * come back when their lease is over. The workers of a hub on PostgreSQL claim through it
 * (pgClaims below); on SQLite they claim with deliveries.claim.ts.
 */
export function pgDueClaims(sql: SQL, queue: PgQueue) {
  const text = claimStatement(queue)
  const { table } = queue
  return {
    /** up to `limit` due rows, in the order they were chosen (round by round, accounts in turn) */
    async claim(b: ClaimBatch): Promise<{ claimed: PgClaimed[]; lastServed: string | null }> {
      if (b.limit <= 0) return { claimed: [], lastServed: b.after }
      const leaseUntil = b.now + (b.leaseMs ?? DELIVERY_LEASE_MS)
      const rows: { id: string; account: string; destination: string; round: number }[] = await sql.unsafe(text, [
        b.now,
        leaseUntil,
        b.limit,
        b.caps.perAccount,
        b.caps.perDestination,
        b.after ?? '',
        MAX_FETCH,
      ])
      // RETURNING keeps no order: put them back in the one the statement chose them in
      const after = b.after ?? ''
      rows.sort((x, y) => x.round - y.round || Number(x.account <= after) - Number(y.account <= after) || (x.account < y.account ? -1 : 1))
      const claimed = rows.map((r) => ({ id: r.id, account: r.account, destination: r.destination, leaseUntil }))
      return { claimed, lastServed: claimed.at(-1)?.account ?? b.after }
    },
    /**
     * Rows this worker claimed and will not send (it stops): due again at `now` for any worker.
     * A row whose lease ran out and that another worker took since is left alone. Returns how
     * many went back.
     */
    async release(rows: PgClaimed[], now: number): Promise<number> {
      if (!rows.length) return 0
      const done = await sql.unsafe(
        `UPDATE ${table} t SET status = 'pending', next_attempt_at = $1::bigint
           FROM jsonb_to_recordset($2::text::jsonb) AS h(id text, lease bigint)
          WHERE t.id = h.id AND t.status = 'sending' AND t.next_attempt_at = h.lease
          RETURNING t.id`,
        [now, JSON.stringify(rows.map((r) => ({ id: r.id, lease: r.leaseUntil })))],
      )
      return done.length
    },
  }
}

export type PgDueClaims = ReturnType<typeof pgDueClaims>

/**
 * A worker's claim on PostgreSQL: batches of pgDueClaims for its free slots, the rows read by
 * `load` (what sending needs; a row deleted since is skipped), each counted in the slots. The
 * caps per account and destination are applied by the statement over every hub; the round
 * starts after the account this worker served last. A stopping worker hands its unsent rows
 * back at once, where its lease still holds.
 */
export function pgClaims<J extends Job>(claims: PgDueClaims, load: (claimed: PgClaimed[]) => Promise<J[]>, leaseMs?: number) {
  return (slots: Slots, caps: SlotCaps): Claims<J> => {
    let after: string | null = null
    const leases = new WeakMap<J, number>()
    return {
      async claim(now) {
        const limit = slots.free()
        if (limit <= 0) return []
        const { claimed, lastServed } = await claims.claim({ now, limit, caps, after, leaseMs })
        after = lastServed
        if (!claimed.length) return []
        const order = new Map(claimed.map((c, i) => [c.id, { i, lease: c.leaseUntil }]))
        const jobs = (await load(claimed)).toSorted((a, b) => order.get(a.id)!.i - order.get(b.id)!.i)
        for (const job of jobs) {
          leases.set(job, order.get(job.id)!.lease)
          slots.take(job.account, job.destination)
        }
        return jobs
      },
      // the statement finds every account's due rows itself
      told() {},
      rescanSoon() {},
      async release(jobs, now) {
        await claims.release(
          jobs.map((j) => ({ id: j.id, account: j.account, destination: j.destination, leaseUntil: leases.get(j)! })),
          now,
        )
      },
    }
  }
}
