/**
 * The claim statement of a delivery queue on PostgreSQL (deliveries.due.pg.ts runs it). One
 * statement per batch, so that hubs claiming at once each lock what they take and pass over
 * what another is taking (FOR UPDATE SKIP LOCKED), with the fairness rule of the SQLite claim
 * (deliveries.claim.ts): the accounts in turn, one row each per round, starting after the
 * account served last, oldest due first within an account, within the caps per account and per
 * destination.
 *
 * While a row is `sending` its `next_attempt_at` is when its claim runs out (the lease): a row
 * whose lease has passed is due again, as a pending one is, so what a hub that died had claimed
 * goes out from another hub once the lease is over. The caps count the rows in flight on every
 * hub (sending, lease not run out), as they stood when the statement began.
 *
 * Parameters: $1 now, $2 lease until, $3 rows this worker can start, $4 per-account cap,
 * $5 per-destination cap, $6 the account served last ('' for none), $7 rows read per account.
 */

/** A delivery queue table as the claim reads it. */
export interface PgQueue {
  table: 'channel_deliveries' | 'webhook_deliveries'
  destination: 'channel_id' | 'endpoint_id'
  /** what else a row needs to go now, on `t` (the row) */
  ready: string
}

export const PG_QUEUES = {
  channels: { table: 'channel_deliveries', destination: 'channel_id', ready: '' },
  // as the SQLite take: a delivery to an endpoint disabled meanwhile stays where it is
  webhooks: {
    table: 'webhook_deliveries',
    destination: 'endpoint_id',
    ready: 'AND EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = t.endpoint_id AND e.enabled)',
  },
} as const satisfies Record<string, PgQueue>

export function claimStatement(q: PgQueue): string {
  const { table: T, destination: D } = q
  // one account's due rows in `status`, oldest first, none to a destination at its cap: an ordered
  // walk of its (client_id, status, next_attempt_at, destination) index that stops after $7
  const dueIn = (status: string) => `(
        SELECT t.id, t.client_id, t.${D} AS destination, t.next_attempt_at FROM ${T} t
         WHERE t.client_id = r.client_id AND t.status = '${status}' AND t.next_attempt_at <= $1::bigint
           AND t.${D} NOT IN (SELECT f.destination FROM flying f WHERE f.client_id = r.client_id AND f.n >= $5::int)
           ${q.ready}
         ORDER BY t.next_attempt_at LIMIT $7::int)`
  return `
WITH RECURSIVE accounts(client_id) AS (
  -- every account with rows in the queue: one index seek each (a skip scan)
  (SELECT client_id FROM ${T} ORDER BY client_id LIMIT 1)
  UNION ALL
  SELECT (SELECT t.client_id FROM ${T} t WHERE t.client_id > a.client_id ORDER BY t.client_id LIMIT 1)
    FROM accounts a WHERE a.client_id IS NOT NULL
),
flying AS (
  SELECT client_id, ${D} AS destination, count(*)::int AS n FROM ${T}
   WHERE status = 'sending' AND next_attempt_at > $1::bigint
   GROUP BY client_id, ${D}
),
room AS (
  SELECT a.client_id, $4::int - coalesce((SELECT sum(f.n) FROM flying f WHERE f.client_id = a.client_id), 0)::int AS free
    FROM accounts a WHERE a.client_id IS NOT NULL
),
seen AS (
  -- pending rows, and sending ones whose lease ran out (a worker that died)
  SELECT c.*, r.free FROM room r
   CROSS JOIN LATERAL (
     SELECT * FROM (${dueIn('pending')} UNION ALL ${dueIn('sending')}) u ORDER BY next_attempt_at, id LIMIT $7::int
   ) c
   WHERE r.free > 0
),
fits AS (
  SELECT s.*, $5::int - coalesce(f.n, 0) AS destination_free,
         row_number() OVER (PARTITION BY s.client_id, s.destination ORDER BY s.next_attempt_at, s.id) AS nth
    FROM seen s LEFT JOIN flying f ON f.client_id = s.client_id AND f.destination = s.destination
),
ranked AS (
  -- a row's round is its place among its account's rows that fit their destination
  SELECT id, client_id, free, row_number() OVER (PARTITION BY client_id ORDER BY next_attempt_at, id) AS round
    FROM fits WHERE nth <= destination_free
),
chosen AS (
  -- in round order, each row looked up by its key and locked unless another worker holds it (or
  -- took it since the statement began: then it is no longer due), until $3 are taken
  SELECT t.id, r.round FROM (
    SELECT id, client_id, round FROM ranked WHERE round <= free ORDER BY round, client_id <= $6::text, client_id
  ) r
  CROSS JOIN LATERAL (
    SELECT x.id FROM ${T} x WHERE x.id = r.id AND x.status IN ('pending', 'sending') AND x.next_attempt_at <= $1::bigint
       FOR UPDATE SKIP LOCKED
  ) t
  LIMIT $3::int
)
UPDATE ${T} SET status = 'sending', next_attempt_at = $2::bigint
  FROM chosen WHERE ${T}.id = chosen.id
RETURNING ${T}.id, ${T}.client_id AS account, ${T}.${D} AS destination, chosen.round::int AS round`
}
