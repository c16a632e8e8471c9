import type { Candidate, DueAccount, Job } from './deliveries.due'
import { rotate, type SlotCaps, type Slots } from './deliveries.slots'
import { type Claims, RESCAN_MS } from './deliveries.worker'

/** What claiming reads of a queue. */
export interface ClaimSource<J extends Job> {
  /** the accounts with a row due at `now`, with the destinations of those rows */
  dueAccounts(now: number): DueAccount[]
  /** up to `limit` of an account's due rows, oldest first, none for the destinations listed */
  dueOf(account: string, now: number, skip: string[], limit: number): Candidate[]
  /** marks a due row sending and returns what sending it needs; null when it cannot go now */
  take(id: string): J | null
}

/** rows read per account and claim at most */
const MAX_FETCH = 64

/**
 * Chooses what to send next: round the accounts in turn, one row each per round, within the
 * caps. It keeps, per account, the destinations that have due rows (from a rescan, and from
 * what it is told of new rows), so that an account whose only busy destination is full costs no
 * read at all, and a read never passes over rows it already knows to be blocked.
 */
export function createClaimer<J extends Job>(source: ClaimSource<J>, slots: Slots, caps: SlotCaps) {
  /** account → the destinations it has (or may have) due rows for */
  const known = new Map<string, Set<string>>()
  let rescanDue = true
  let lastRescan = Number.NEGATIVE_INFINITY
  let lastServed: string | null = null

  const hasRoom = (account: string, ds: Set<string>) => [...ds].some((d) => slots.destinationFree(account, d) > 0)
  /** what an empty read proved: the destinations with room have nothing due */
  function emptied(account: string, ds: Set<string>) {
    for (const d of ds) if (slots.destinationFree(account, d) > 0) ds.delete(d)
    if (!ds.size) known.delete(account)
  }

  function claim(now: number): J[] {
    if (slots.free() <= 0) return []
    if (rescanDue || performance.now() - lastRescan >= RESCAN_MS) {
      known.clear()
      for (const d of source.dueAccounts(now)) known.set(d.account, new Set(d.destinations))
      rescanDue = false
      lastRescan = performance.now()
    }
    const limitOf = (account: string) => Math.min(MAX_FETCH, slots.accountFree(account))
    const read = (account: string) => {
      const limit = limitOf(account)
      const list = source.dueOf(account, now, slots.fullDestinations(account), limit)
      return { list, complete: list.length < limit, refetches: 0 }
    }
    const queues = new Map<string, ReturnType<typeof read>>()
    for (const account of rotate([...known.keys()], lastServed)) {
      const ds = known.get(account)!
      if (slots.accountFree(account) <= 0 || !hasRoom(account, ds)) continue
      const q = read(account)
      if (q.list.length) queues.set(account, q)
      else emptied(account, ds)
    }

    /** the account's next row that fits the caps, marked sending; null when it has none now */
    const next = (account: string, q: ReturnType<typeof read>): J | null => {
      while (slots.accountFree(account) > 0) {
        let skipped = false
        while (q.list.length) {
          const c = q.list.shift()!
          if (slots.destinationFree(account, c.destination) <= 0) skipped = true
          else {
            const job = source.take(c.id)
            if (job) return job
          }
        }
        // rows passed over for a destination that filled up meanwhile: read again past it, if
        // there may be more and some destination of the account still has room
        const ds = known.get(account)
        if (!skipped || q.complete || !ds || !hasRoom(account, ds) || q.refetches >= caps.perAccount) return null
        const refetches = q.refetches + 1
        Object.assign(q, read(account), { refetches })
        if (!q.list.length) {
          emptied(account, ds)
          return null
        }
      }
      return null
    }

    const out: J[] = []
    while (queues.size && slots.free() > 0) {
      for (const [account, q] of queues) {
        const job = next(account, q)
        if (job) {
          slots.take(job.account, job.destination)
          out.push(job)
          lastServed = account
        } else queues.delete(account)
        if (slots.free() <= 0) break
      }
    }
    return out
  }

  return {
    claim,
    /** new rows for `account`, to these destinations */
    told(account: string, destinations: string[]) {
      const ds = known.get(account)
      if (ds) for (const d of destinations) ds.add(d)
      else known.set(account, new Set(destinations))
    },
    /** a retry came due, or rows wait behind the caps: whose, only the queue knows */
    rescanSoon() {
      rescanDue = true
    },
  }
}

/**
 * The claim of one process on SQLite: the claimer above, each batch in one transaction of the
 * queue's database. A stopped worker's unsent claims stay `sending` until the next start
 * (DeliveryQueue.releaseClaims) sets them pending again.
 */
export function sqliteClaims<J extends Job>(source: ClaimSource<J>, transaction: <T>(fn: () => T) => T) {
  return (slots: Slots, caps: SlotCaps): Claims<J> => {
    const claimer = createClaimer(source, slots, caps)
    return {
      claim: async (now) => transaction(() => claimer.claim(now)),
      told: claimer.told,
      rescanSoon: claimer.rescanSoon,
      release: async () => {},
    }
  }
}
