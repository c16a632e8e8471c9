import { useState } from 'preact/hooks'
import { api } from '../../lib/api'
import { describeError } from '../../lib/errors'
import { useSearch } from '../../lib/router'
import { canAdmin, mode } from '../../lib/session'
import { Banner, Button, ButtonLink, Card, DataTable, EmptyState, Skeleton, StatusBadge, Time, type Column } from '../../ui'
import { subscriptionWords } from '../billing-status'
import { money, perInterval } from '../money'
import { ReadOnlyNote, SettingsHeader } from '../SettingsHeader'
import { LoadError } from '../../ui/LoadError'
import { Pager, pageFromSearch } from '../Pager'
import type { Client, Page, Payment, Plan, Subscription } from '../types'
import { useLoad } from '../../lib/use-load'

const PAGE_SIZE = 12
/** statuses in which the subscription runs: a new checkout would bill twice, changes go through Stripe's portal */
const LIVE = new Set(['active', 'trialing', 'past_due'])

interface Overview {
  client: Client
  subscription: Subscription
  plans: Plan[]
}

const loadOverview = async (): Promise<Overview> => {
  const [client, subscription, plans] = await Promise.all([
    api.get<Client>('/v1/clients/me'),
    api.get<Subscription>('/v1/billing/subscription'),
    api.get<Plan[]>('/v1/billing/plans'),
  ])
  return { client, subscription, plans }
}

/** The account's plan, its subscription and its payments (service mode; an own instance has no billing). */
export default function BillingPage(_props: { params: Record<string, string> }) {
  if (mode.value !== 'service') {
    return (
      <div class="page-stack">
        <SettingsHeader title="Billing" />
        <EmptyState title="No billing on this instance">
          This is a self-hosted instance without plans: its operator sets each account's limits on the Operator page.
        </EmptyState>
      </div>
    )
  }
  return <Billing />
}

function Billing() {
  const page = pageFromSearch(useSearch())
  const overview = useLoad(loadOverview)
  const payments = useLoad(() => api.get<Page<Payment>>('/v1/clients/me/payments', { limit: PAGE_SIZE, offset: page * PAGE_SIZE }), [page])
  const [busy, setBusy] = useState<'portal' | 'sync' | null>(null)
  const [message, setMessage] = useState<{ tone: 'error' | 'success'; text: string } | null>(null)
  const manage = canAdmin.value

  const openPortal = async () => {
    setBusy('portal')
    setMessage(null)
    try {
      const { portal_url } = await api.post<{ portal_url: string }>('/v1/billing/portal')
      window.location.assign(portal_url)
    } catch (err) {
      setMessage({ tone: 'error', text: describeError(err) })
      setBusy(null)
    }
  }

  const syncNow = async () => {
    setBusy('sync')
    setMessage(null)
    try {
      const r = await api.post<{ payments_recorded: number }>('/v1/billing/sync')
      setMessage({ tone: 'success', text: `Up to date with Stripe${r.payments_recorded ? `: ${r.payments_recorded} payments recorded` : ''}.` })
      await Promise.all([overview.reload(), payments.reload()])
    } catch (err) {
      setMessage({ tone: 'error', text: describeError(err) })
    } finally {
      setBusy(null)
    }
  }

  const data = overview.data
  const sub = data?.subscription
  const plan = data ? data.plans.find((p) => p.id === data.client.plan_type) : undefined
  const status = subscriptionWords(sub?.status ?? 'none')
  // a customer exists once a checkout was made: the portal has its card and invoices even when nothing is paid now
  const hasSubscription = sub !== undefined && sub.status !== 'none'
  const live = sub !== undefined && LIVE.has(sub.status)

  const columns: Column<Payment>[] = [
    { key: 'created_at', label: 'Date', render: (p) => <Time iso={p.paid_at ?? p.created_at} /> },
    { key: 'description', label: 'Description', render: (p) => p.description ?? (p.period_start ? <PeriodText payment={p} /> : 'Invoice') },
    { key: 'amount', label: 'Amount', numeric: true, render: (p) => money(p.amount, p.currency) },
    {
      key: 'status',
      label: 'Status',
      render: (p) => <StatusBadge status={p.status === 'paid' ? 'active' : p.status === 'failed' ? 'critical' : 'pending'} label={p.status} />,
    },
    {
      key: 'invoice',
      label: 'Invoice',
      render: (p) =>
        p.invoice_url ? (
          <a href={p.invoice_url} target="_blank" rel="noopener noreferrer">
            View<span class="visually-hidden"> the invoice of {money(p.amount, p.currency)}</span>
          </a>
        ) : (
          '—'
        ),
    },
  ]

  const total = payments.data?.total ?? 0
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE))
  return (
    <div class="page-stack">
      <SettingsHeader title="Billing" subtitle="Your plan, its limits and your payments. Payments run through Stripe." />
      {!manage && <ReadOnlyNote>You can see this account's plan and payments; an owner or admin changes the plan.</ReadOnlyNote>}
      {message && <Banner tone={message.tone}>{message.text}</Banner>}
      <Card
        title="Current plan"
        actions={
          manage && data ? (
            <>
              {!live && (
                <ButtonLink href="/pricing" variant="primary">
                  Choose a plan
                </ButtonLink>
              )}
              {hasSubscription && (
                <Button variant={live ? 'primary' : 'secondary'} onClick={openPortal} loading={busy === 'portal'}>
                  Manage billing
                </Button>
              )}
              {hasSubscription && (
                <Button onClick={syncNow} loading={busy === 'sync'}>
                  Refresh from Stripe
                </Button>
              )}
            </>
          ) : undefined
        }
      >
        {overview.error ? <LoadError error={overview.error} retry={overview.reload} /> : null}
        {!data ? (
          overview.error ? null : (
            <Skeleton lines={4} label="Loading the plan" />
          )
        ) : (
          <>
            <dl class="facts">
              <dt>Plan</dt>
              <dd class="strong">{plan?.name ?? data.client.plan_type ?? 'Free'}</dd>
              <dt>Subscription</dt>
              <dd>
                <StatusBadge status={status.badge} label={status.word} />
                {status.hint && <p class="hint">{status.hint}</p>}
              </dd>
              {sub?.amount !== null && sub?.amount !== undefined && (
                <>
                  <dt>Price</dt>
                  <dd>
                    {money(sub.amount, sub.currency)} {perInterval(sub.interval)}
                  </dd>
                </>
              )}
              {sub?.current_period_end && (
                <>
                  <dt>{sub.cancel_at_period_end ? 'Ends' : 'Renews'}</dt>
                  <dd>
                    <Time iso={sub.current_period_end} />
                    {sub.cancel_at_period_end && <span class="muted"> (canceled: the free plan applies after this date)</span>}
                  </dd>
                </>
              )}
              <dt>Devices</dt>
              <dd class="num-inline">up to {data.client.max_devices.toLocaleString()}</dd>
              <dt>Members</dt>
              <dd class="num-inline">up to {data.client.max_users.toLocaleString()}</dd>
              {plan && (
                <>
                  <dt>Requests</dt>
                  <dd class="num-inline">{plan.rate_limit.toLocaleString()} per minute</dd>
                </>
              )}
            </dl>
            {!live && (
              <p class="muted">
                Compare the plans on the <a href="/pricing">pricing page</a>.
              </p>
            )}
          </>
        )}
      </Card>
      <Card title="Payments">
        {payments.error ? <LoadError error={payments.error} retry={payments.reload} /> : null}
        {payments.data === null ? (
          payments.error ? null : (
            <Skeleton lines={3} height={32} label="Loading payments" />
          )
        ) : (
          <>
            <DataTable
              caption="Payments, newest first"
              columns={columns}
              rows={payments.data.items}
              rowKey={(p) => p.id}
              empty={<EmptyState title="No payments yet">Invoices appear here once Stripe has issued them.</EmptyState>}
            />
            {pages > 1 && <Pager page={page} pages={pages} total={total} />}
          </>
        )}
      </Card>
    </div>
  )
}

function PeriodText({ payment }: { payment: Payment }) {
  return (
    <span>
      <Time iso={payment.period_start} /> – <Time iso={payment.period_end} />
    </span>
  )
}
