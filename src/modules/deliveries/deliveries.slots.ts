/**
 * The in-flight caps of a delivery queue. One account cannot take every slot (a tenant with a
 * slow receiver, or a thousand test sends, leaves the others theirs), nor one destination
 * every slot of its account. A slot is freed the moment its attempt ends, never when a batch does.
 */
export interface SlotCaps {
  /** attempts in flight at once, all accounts together */
  total: number
  /** in flight for one account */
  perAccount: number
  /** in flight to one channel or endpoint */
  perDestination: number
}

export function createSlots(caps: SlotCaps) {
  let inFlight = 0
  const byAccount = new Map<string, number>()
  const byDestination = new Map<string, number>()
  const bump = (m: Map<string, number>, key: string, by: number) => {
    const n = (m.get(key) ?? 0) + by
    if (n > 0) m.set(key, n)
    else m.delete(key)
  }
  return {
    free: () => caps.total - inFlight,
    inFlight: () => inFlight,
    accountFree: (account: string) => Math.min(caps.total - inFlight, caps.perAccount - (byAccount.get(account) ?? 0)),
    /** the account's destinations at their cap: not worth looking at until one of their attempts ends */
    fullDestinations: (account: string) =>
      [...byDestination].filter(([k, n]) => n >= caps.perDestination && k.startsWith(`${account}\n`)).map(([k]) => k.slice(account.length + 1)),
    destinationFree: (account: string, destination: string) => caps.perDestination - (byDestination.get(`${account}\n${destination}`) ?? 0),
    take(account: string, destination: string) {
      inFlight++
      bump(byAccount, account, 1)
      bump(byDestination, `${account}\n${destination}`, 1)
    },
    release(account: string, destination: string) {
      inFlight--
      bump(byAccount, account, -1)
      bump(byDestination, `${account}\n${destination}`, -1)
    },
  }
}

export type Slots = ReturnType<typeof createSlots>

/** The accounts in turn, starting after the one served last, so no account always goes first. */
export function rotate(accounts: string[], last: string | null): string[] {
  const sorted = accounts.toSorted()
  if (last === null) return sorted
  const i = sorted.findIndex((a) => a > last)
  return i <= 0 ? sorted : [...sorted.slice(i), ...sorted.slice(0, i)]
}
