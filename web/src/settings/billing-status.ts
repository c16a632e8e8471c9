/** Stripe's subscription states in words, and the badge each shows as (see StatusBadge). */
export const SUBSCRIPTION_WORDS: Record<string, { word: string; badge: string; hint?: string }> = {
  none: { word: 'No subscription', badge: 'never' },
  active: { word: 'Active', badge: 'active' },
  trialing: { word: 'Trial', badge: 'active' },
  past_due: { word: 'Payment overdue', badge: 'warning', hint: 'The last payment failed; Stripe retries it. Update the card in “Manage billing”.' },
  unpaid: { word: 'Unpaid', badge: 'critical', hint: 'Payments failed; the free plan’s limits apply until it is paid.' },
  canceled: { word: 'Canceled', badge: 'revoked', hint: 'The free plan’s limits apply.' },
  incomplete: { word: 'Incomplete', badge: 'pending', hint: 'The first payment has not gone through yet.' },
  incomplete_expired: { word: 'Expired before payment', badge: 'revoked' },
  paused: { word: 'Paused', badge: 'pending' },
}

export const subscriptionWords = (status: string) => SUBSCRIPTION_WORDS[status] ?? { word: status, badge: 'info' }
