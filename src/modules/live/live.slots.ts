/** why a stream was refused: the user has too many open, or the instance does */
export type SlotRefusal = 'user' | 'total'

/**
 * Open live streams, counted per user and in total: each holds a socket, a subscription and a
 * little memory for as long as it is open, so neither one account (a script, a hundred tabs)
 * nor everyone together can hold more than their share.
 */
export function streamSlots(limits: { perUser: number; total: number }) {
  const perUser = new Map<string, number>()
  let total = 0
  return {
    /** a slot for one stream of the user, with the function that gives it back (once) */
    take(userId: string): { release: () => void } | { refused: SlotRefusal } {
      const mine = perUser.get(userId) ?? 0
      if (mine >= limits.perUser) return { refused: 'user' }
      if (total >= limits.total) return { refused: 'total' }
      perUser.set(userId, mine + 1)
      total++
      let released = false
      return {
        release() {
          if (released) return
          released = true
          total--
          const left = (perUser.get(userId) ?? 1) - 1
          if (left > 0) perUser.set(userId, left)
          else perUser.delete(userId)
        },
      }
    },
    open: () => total,
    limits,
  }
}

export type StreamSlots = ReturnType<typeof streamSlots>
