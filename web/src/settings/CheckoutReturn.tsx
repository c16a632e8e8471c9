import { signal } from '@preact/signals'
import { useEffect } from 'preact/hooks'
import { api } from '../lib/api'
import { location, setSearch } from '../lib/router'
import { canAdmin, me } from '../lib/session'
import { Banner, Button } from '../ui'
import type { Plan, Subscription } from './types'

/** Statuses in which the paid plan's limits apply. */
const PAID = new Set(['active', 'trialing', 'past_due'])
const TRIES = 5
const PAUSE_MS = 1500

type Notice = { tone: 'info' | 'success' | 'warning'; text: string }
const notice = signal<Notice | null>(null)

/** The subscription as Stripe has it now: owners and admins pull it (POST /v1/billing/sync), others read what is stored. */
async function currentSubscription(): Promise<Subscription> {
  if (canAdmin.value) return (await api.post<{ subscription: Subscription }>('/v1/billing/sync')).subscription
  return api.get<Subscription>('/v1/billing/subscription')
}

/**
 * Back from Stripe's checkout (/dashboard?checkout=success): the plan is confirmed at once by
 * asking Stripe, rather than waiting for the webhook, and the new plan is named. A payment still
 * settling is asked about a few more times.
 */
async function confirmCheckout(): Promise<void> {
  notice.value = { tone: 'info', text: 'Payment received: confirming your plan with Stripe…' }
  try {
    for (let i = 0; i < TRIES; i++) {
      const sub = await currentSubscription()
      if (PAID.has(sub.status)) {
        const plans = await api.get<Plan[]>('/v1/billing/plans')
        const plan = plans.find((p) => p.id === sub.plan_id)
        notice.value = {
          tone: 'success',
          text: plan
            ? `Your plan is now ${plan.name}: up to ${plan.max_devices.toLocaleString()} devices and ${plan.max_users.toLocaleString()} members.`
            : 'Your subscription is active.',
        }
        return
      }
      await new Promise((r) => setTimeout(r, PAUSE_MS))
    }
  } catch {
    // fall through to the same advice as a payment still settling
  }
  notice.value = { tone: 'warning', text: 'Stripe has not confirmed the payment yet. Your plan updates as soon as it does; Settings → Billing shows it.' }
}

/** Mounted in the layout: shows on the dashboard after a checkout, until dismissed. */
export function CheckoutReturn() {
  const { path, search } = location.value
  const signedIn = me.value !== null
  useEffect(() => {
    if (path !== '/dashboard' || !signedIn || new URLSearchParams(search).get('checkout') !== 'success') return
    // the query is spent: a reload or a shared link does not confirm again
    setSearch({ checkout: null, session_id: null })
    void confirmCheckout()
  }, [path, search, signedIn])
  if (path !== '/dashboard' || !notice.value) return null
  return (
    <div class="checkout-return">
      <Banner tone={notice.value.tone}>
        {notice.value.text}{' '}
        {notice.value.tone !== 'info' && (
          <Button small variant="ghost" onClick={() => (notice.value = null)}>
            Dismiss
          </Button>
        )}
      </Banner>
    </div>
  )
}
