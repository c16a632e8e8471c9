import { useState } from 'preact/hooks'
import { api } from '../../lib/api'
import { describeError } from '../../lib/errors'
import { setSearch, useSearch } from '../../lib/router'
import { canAdmin, me, mode, ready } from '../../lib/session'
import { Banner, Button, ButtonLink, EmptyState, PageHeader, Skeleton, StatusBadge } from '../../ui'
import { Icon } from '../../ui/Icon'
import { money } from '../money'
import { extraFeatures } from '../plans'
import { LoadError } from '../../ui/LoadError'
import type { Client, Plan, Subscription } from '../types'
import { useLoad } from '../../lib/use-load'

/** A live subscription: checkout would bill twice, so plan changes go through Stripe's portal. */
const PAID = new Set(['active', 'trialing', 'past_due'])

const INTERVAL_WORDS: Record<string, string> = { month: 'Monthly', year: 'Yearly' }

interface Account {
  client: Client
  subscription: Subscription
}

/** The plans, public: signed out, each leads to sign-up; signed in, to Stripe's checkout. */
export default function PricingPage(_props: { params: Record<string, string> }) {
  const plans = useLoad(() => api.get<Plan[]>('/v1/billing/plans', undefined, { anonymous: true }))
  const signedIn = ready.value && me.value !== null
  const account = useLoad<Account | null>(
    async () => (signedIn ? { client: await api.get<Client>('/v1/clients/me'), subscription: await api.get<Subscription>('/v1/billing/subscription') } : null),
    [signedIn],
  )
  const search = useSearch()
  const canceled = search.get('checkout') === 'canceled'
  const [choosing, setChoosing] = useState<string | null>(null)
  const [error, setError] = useState<string | null>(null)

  if (mode.value !== 'service') {
    return (
      <div class="page-stack">
        <PageHeader title="Pricing" />
        <EmptyState title="No plans on this instance">This is a self-hosted instance: its operator sets each account's limits.</EmptyState>
      </div>
    )
  }

  const checkout = async (plan: Plan) => {
    setChoosing(plan.id)
    setError(null)
    try {
      const { checkout_url } = await api.post<{ checkout_url: string }>('/v1/billing/checkout', { plan: plan.id })
      window.location.assign(checkout_url)
    } catch (err) {
      setError(describeError(err))
      setChoosing(null)
    }
  }

  const intervals = [...new Set((plans.data ?? []).filter((p) => p.price > 0).map((p) => p.interval))]
  const interval = intervals.includes(search.get('billing') ?? '') ? search.get('billing')! : (intervals[0] ?? 'month')
  const shown = (plans.data ?? []).filter((p) => p.price === 0 || p.interval === interval)
  const current = account.data?.client.plan_type ?? null
  const subscribed = account.data ? PAID.has(account.data.subscription.status) : false

  const action = (plan: Plan) => {
    if (plan.price === 0) {
      if (!signedIn)
        return (
          <ButtonLink href="/signup?next=/dashboard" variant="secondary">
            Start free
          </ButtonLink>
        )
      return current === plan.id ? <StatusBadge status="active" label="Your plan" /> : null
    }
    if (!signedIn)
      return (
        <ButtonLink href={`/signup?next=${encodeURIComponent('/pricing')}`} variant="primary">
          Sign up to choose {plan.name}
        </ButtonLink>
      )
    if (current === plan.id && subscribed) return <StatusBadge status="active" label="Your plan" />
    if (!canAdmin.value) return <p class="hint">An owner or admin of your account chooses the plan.</p>
    if (subscribed)
      return (
        <ButtonLink href="/settings/billing" variant="secondary">
          Change in billing settings
        </ButtonLink>
      )
    return (
      <Button variant="primary" onClick={() => void checkout(plan)} loading={choosing === plan.id} disabled={choosing !== null}>
        Choose {plan.name}
      </Button>
    )
  }

  return (
    <div class="page-stack">
      <PageHeader title="Pricing" subtitle="Every plan has the whole product: the plans differ in how many devices and people they take." />
      {canceled && <Banner tone="info">Checkout was canceled: nothing was charged. Choose a plan whenever you are ready.</Banner>}
      {error && <Banner tone="error">{error}</Banner>}
      {plans.error ? <LoadError error={plans.error} retry={plans.reload} /> : null}
      {intervals.length > 1 && (
        <fieldset class="segmented billing-interval">
          <legend class="visually-hidden">Billing period</legend>
          {intervals.map((i) => (
            <button key={i} type="button" aria-pressed={i === interval} onClick={() => setSearch({ billing: i })}>
              {INTERVAL_WORDS[i] ?? i}
            </button>
          ))}
        </fieldset>
      )}
      {plans.data === null ? (
        plans.error ? null : (
          <div class="plans">
            {[0, 1, 2].map((i) => (
              <div key={i} class="card plan">
                <Skeleton lines={6} label="Loading plans" />
              </div>
            ))}
          </div>
        )
      ) : (
        <ul class="plans" aria-label="Plans">
          {shown.map((plan) => (
            <li key={plan.id} class={`card plan${current === plan.id ? ' plan-current' : ''}`}>
              <h2 class="plan-name">{plan.name}</h2>
              <p class="plan-price">
                <span class="plan-amount">{plan.price === 0 ? 'Free' : money(plan.price, plan.currency)}</span>
                {plan.price > 0 && <span class="muted"> per {plan.interval}</span>}
              </p>
              <ul class="plan-features">
                <li>
                  <Icon name="server" size={16} /> {plan.max_devices.toLocaleString()} {plan.max_devices === 1 ? 'device' : 'devices'}
                </li>
                <li>
                  <Icon name="user" size={16} /> {plan.max_users.toLocaleString()} members
                </li>
                <li>
                  <Icon name="clock" size={16} /> {plan.rate_limit.toLocaleString()} requests a minute
                </li>
                {extraFeatures(plan).map((f) => (
                  <li key={f}>
                    <Icon name="check" size={16} /> {f}
                  </li>
                ))}
              </ul>
              <div class="plan-action">{action(plan)}</div>
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
