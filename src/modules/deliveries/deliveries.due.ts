import type { Database } from 'bun:sqlite'

/** A claimed delivery: whose it is and where it goes (what the caps count). */
export interface Job {
  id: string
  account: string
  destination: string
}

/** A due row as the claim scan sees it: enough to apply the caps without reading the row. */
export type Candidate = Job

/** An account with due rows, and the channels or endpoints they go to. */
export interface DueAccount {
  account: string
  destinations: string[]
}

/**
 * The claim-side reads of a delivery queue table, the same for both (channel_deliveries by
 * channel_id, webhook_deliveries by endpoint_id), on its (client_id, status, next_attempt_at,
 * destination) index: one account's due rows are read without passing over anyone else's,
 * however large another account's backlog.
 */
export function dueQueries(sqlite: Database, table: 'channel_deliveries' | 'webhook_deliveries', destination: 'channel_id' | 'endpoint_id') {
  const due = `client_id = ? AND status = 'pending' AND next_attempt_at <= ?`
  const nextAccount = sqlite.query<{ client_id: string }, [string]>(`SELECT client_id FROM ${table} WHERE client_id > ? ORDER BY client_id LIMIT 1`)
  const destinations = sqlite.query<{ d: string }, [string, number]>(`SELECT DISTINCT ${destination} AS d FROM ${table} WHERE ${due}`)
  const dueOf = sqlite.query<{ id: string; destination: string }, [string, number, string, number]>(
    `SELECT id, ${destination} AS destination FROM ${table}
      WHERE ${due} AND ${destination} NOT IN (SELECT value FROM json_each(?))
      ORDER BY next_attempt_at LIMIT ?`,
  )
  return {
    /**
     * The accounts with a row due at `now` and where those rows go: a seek per account that
     * has rows at all (a skip scan of the index), then the index entries of its due rows.
     */
    dueAccounts(now: number): DueAccount[] {
      const out: DueAccount[] = []
      for (let at = nextAccount.get(''); at; at = nextAccount.get(at.client_id)) {
        const found = destinations.all(at.client_id, now).map((r) => r.d)
        if (found.length) out.push({ account: at.client_id, destinations: found })
      }
      return out
    },
    /** up to `limit` of an account's due rows, oldest due first, none to the destinations in `skip` */
    dueOf: (account: string, now: number, skip: string[], limit: number) =>
      dueOf.all(account, now, JSON.stringify(skip), limit).map((r) => ({ ...r, account })),
  }
}
