const EXPIRY_DAYS: Record<string, number | null> = { never: null, '30': 30, '90': 90, '365': 365 }

/** The expiry chosen as an ISO time: a preset number of days from now, a date's end (local), or none. */
export function expiryOf(choice: string, date: string, now = Date.now()): string | null {
  if (choice === 'date') {
    if (!date) return null
    const [y, m, d] = date.split('-').map(Number)
    return new Date(y!, m! - 1, d!, 23, 59, 59).toISOString()
  }
  const days = EXPIRY_DAYS[choice] ?? null
  return days === null ? null : new Date(now + days * 86_400_000).toISOString()
}
