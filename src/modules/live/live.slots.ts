/** why a stream was refused: the user, the account or the instance has too many open */
export type SlotRefusal = 'user' | 'account' | 'total'

export interface SlotLimits {
  /** open streams one user may hold (tabs, windows) */
  perUser: number
  /** open streams one account may hold over all its users: its share of the instance */
  perAccount: number
  /** open streams on the whole instance */
  total: number
  /** an account's first streams, which may use the reserve */
  first: number
  /** the last streams of the instance, kept for accounts opening their first ones */
  reserved: number
}

/** open streams one user may hold at most, when the instance's share allows */
export const STREAMS_PER_USER = 20
/** streams of an account that may come out of the reserve */
export const FIRST_STREAMS = 2

/**
 * The caps from the instance's total: an account may hold a tenth of it (at least its first
 * streams), a user at most 20 of the account's, and the last quarter is kept for accounts
 * opening their first streams. So it takes eight accounts at their full share to fill the
 * shared three quarters, and an account with fewer than its first streams open can still open
 * them while others are busy.
 */
export function slotLimits(total: number): SlotLimits {
  const perAccount = Math.min(total, Math.max(FIRST_STREAMS, Math.ceil(total / 10)))
  return {
    perUser: Math.min(STREAMS_PER_USER, perAccount),
    perAccount,
    total,
    first: FIRST_STREAMS,
    reserved: Math.floor(total / 4),
  }
}

/**
 * Open live streams, counted per user, per account and in total: each holds a socket, a
 * subscription and a little memory for as long as it is open, so neither one user (a script, a
 * hundred tabs) nor one account can hold more than its share, and a busy instance still lets
 * an account with no stream open its first.
 */
export function streamSlots(limits: SlotLimits) {
  const perUser = new Map<string, number>()
  const perAccount = new Map<string, number>()
  let total = 0
  const add = (map: Map<string, number>, key: string, by: number) => {
    const n = (map.get(key) ?? 0) + by
    if (n > 0) map.set(key, n)
    else map.delete(key)
  }
  return {
    /** a slot for one stream of the user in the account, with the function that gives it back (once) */
    take(clientId: string, userId: string): { release: () => void } | { refused: SlotRefusal } {
      const account = perAccount.get(clientId) ?? 0
      if ((perUser.get(userId) ?? 0) >= limits.perUser) return { refused: 'user' }
      if (account >= limits.perAccount) return { refused: 'account' }
      if (total >= limits.total) return { refused: 'total' }
      // the reserve: only an account's first streams may take the instance's last ones
      if (account >= limits.first && total >= limits.total - limits.reserved) return { refused: 'total' }
      add(perUser, userId, 1)
      add(perAccount, clientId, 1)
      total++
      let released = false
      return {
        release() {
          if (released) return
          released = true
          total--
          add(perUser, userId, -1)
          add(perAccount, clientId, -1)
        },
      }
    },
    open: () => total,
    limits,
  }
}

export type StreamSlots = ReturnType<typeof streamSlots>
