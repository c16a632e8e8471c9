import { useState } from 'preact/hooks'
import { api } from '../../lib/api'
import { useSearch } from '../../lib/router'
import { Button, Card, DataTable, EmptyState, PageHeader, Skeleton, StatusBadge, Time, type Column } from '../../ui'
import { InstanceCard, StatsCard } from '../AdminOverview'
import { StorageCard } from '../StorageCard'
import type { StorageReport } from '../../../../src/modules/storage/storage.model'
import { subscriptionWords } from '../billing-status'
import { EditLimitsDialog } from '../EditLimitsDialog'
import { Pager, pageFromSearch } from '../Pager'
import { LoadError } from '../../ui/LoadError'
import type { AdminClient, CollectorVersion, InstanceSettings, Page, Plan } from '../types'
import { useLoad } from '../../lib/use-load'

const CLIENTS_PAGE = 25
const VERSIONS_PAGE = 10

/** "3 / 10", and the limit in force marked when the operator set it by hand. */
const used = (n: number, max: number, override: number | null) => (
  <span>
    {n.toLocaleString()} / {max.toLocaleString()}
    {override !== null && (
      <span class="muted" title="Set by hand">
        {' '}
        ✎
      </span>
    )}
  </span>
)

/** The instance operator's page: figures, settings, every client's limits, the collector releases. */
export default function AdminPage(_props: { params: Record<string, string> }) {
  const search = useSearch()
  const clientsPage = pageFromSearch(search, 'clients')
  const versionsPage = pageFromSearch(search, 'versions')
  const stats = useLoad(() => api.get<Record<string, number>>('/v1/admin/stats'))
  const instance = useLoad(() => api.get<InstanceSettings>('/v1/admin/instance'))
  const storage = useLoad(() => api.get<StorageReport>('/v1/admin/storage'))
  const plans = useLoad(() => api.get<Plan[]>('/v1/billing/plans'))
  const clients = useLoad(() => api.get<Page<AdminClient>>('/v1/admin/clients', { limit: CLIENTS_PAGE, offset: clientsPage * CLIENTS_PAGE }), [clientsPage])
  const versions = useLoad(
    () => api.get<Page<CollectorVersion>>('/v1/versions', { limit: VERSIONS_PAGE, offset: versionsPage * VERSIONS_PAGE }),
    [versionsPage],
  )
  const [editing, setEditing] = useState<AdminClient | null>(null)
  const planName = (id: string | null) => plans.data?.find((p) => p.id === id)?.name ?? id ?? '—'

  const clientColumns: Column<AdminClient>[] = [
    {
      key: 'name',
      label: 'Client',
      render: (c) => (
        <div>
          <div class="strong">{c.name ?? <span class="muted">unnamed</span>}</div>
          {c.owner_email !== c.name && <div class="muted small">{c.owner_email ?? c.client_id}</div>}
        </div>
      ),
    },
    { key: 'plan', label: 'Plan', render: (c) => planName(c.plan_type) },
    {
      key: 'subscription',
      label: 'Subscription',
      render: (c) => {
        const s = subscriptionWords(c.subscription_status ?? 'none')
        return <StatusBadge status={s.badge} label={s.word} />
      },
    },
    { key: 'devices', label: 'Devices', numeric: true, render: (c) => used(c.usage.devices, c.max_devices, c.max_devices_override) },
    { key: 'members', label: 'Members', numeric: true, render: (c) => used(c.usage.members, c.max_users, c.max_users_override) },
    { key: 'api_keys', label: 'Keys', numeric: true, render: (c) => c.usage.api_keys.toLocaleString() },
    { key: 'rate', label: 'Req/min', numeric: true, render: (c) => (c.rate_limit === null ? <span class="muted">plan</span> : c.rate_limit.toLocaleString()) },
    { key: 'created', label: 'Since', render: (c) => <Time iso={c.created_at} /> },
    {
      key: 'actions',
      label: <span class="visually-hidden">Actions</span>,
      align: 'right',
      render: (c) => (
        <Button small onClick={() => setEditing(c)} aria-label={`Edit limits of ${c.name ?? c.owner_email ?? c.client_id}`}>
          Edit limits
        </Button>
      ),
    },
  ]

  const versionColumns: Column<CollectorVersion>[] = [
    { key: 'platform', label: 'Platform', render: (v) => <code class="mono">{v.platform}</code> },
    { key: 'version', label: 'Version', render: (v) => <span class="strong">{v.version}</span> },
    { key: 'mandatory', label: 'Update', render: (v) => (v.is_mandatory ? <StatusBadge status="warning" label="Mandatory" /> : 'Optional') },
    {
      key: 'sha256',
      label: 'SHA-256',
      render: (v) => (v.sha256 ? <code class="mono" title={v.sha256}>{`${v.sha256.slice(0, 12)}…`}</code> : <span class="muted">none: not installed</span>),
    },
    {
      key: 'download',
      label: 'Download',
      render: (v) =>
        v.download_url ? (
          <a href={v.download_url} rel="noopener noreferrer">
            Executable
            <span class="visually-hidden">
              {' '}
              of {v.version} for {v.platform}
            </span>
          </a>
        ) : (
          'from this hub'
        ),
    },
    { key: 'created_at', label: 'Published', render: (v) => <Time iso={v.created_at} /> },
  ]

  return (
    <div class="page-stack">
      <PageHeader title="Operator" subtitle="This instance as a whole: its figures, its settings, every client and the collector releases." />
      <div class="admin-grid">
        <StatsCard stats={stats} />
        <InstanceCard instance={instance} />
        <StorageCard storage={storage} />
      </div>
      <Card title="Clients">
        {clients.error ? <LoadError error={clients.error} retry={clients.reload} /> : null}
        {!clients.data ? (
          clients.error ? null : (
            <Skeleton lines={5} height={40} label="Loading clients" />
          )
        ) : (
          <>
            <DataTable caption="Every client with its usage and limits" columns={clientColumns} rows={clients.data.items} rowKey={(c) => c.client_id} />
            {clients.data.total > CLIENTS_PAGE && (
              <Pager
                page={clientsPage}
                pages={Math.ceil(clients.data.total / CLIENTS_PAGE)}
                total={clients.data.total}
                name="clients"
                label="Pages of clients"
              />
            )}
          </>
        )}
      </Card>
      <Card title="Collector versions">
        {versions.error ? <LoadError error={versions.error} retry={versions.reload} /> : null}
        {!versions.data ? (
          versions.error ? null : (
            <Skeleton lines={3} height={32} label="Loading versions" />
          )
        ) : (
          <>
            <DataTable
              caption="Published collector versions, newest first"
              columns={versionColumns}
              rows={versions.data.items}
              rowKey={(v) => v.id}
              empty={
                <EmptyState title="No versions published">
                  The hub publishes its own executable shortly after it starts; publish others with <code class="mono">POST /v1/versions</code>.
                </EmptyState>
              }
            />
            {versions.data.total > VERSIONS_PAGE && (
              <Pager
                page={versionsPage}
                pages={Math.ceil(versions.data.total / VERSIONS_PAGE)}
                total={versions.data.total}
                name="versions"
                label="Pages of versions"
              />
            )}
          </>
        )}
      </Card>
      <EditLimitsDialog
        client={editing}
        plans={plans.data ?? []}
        onClose={() => setEditing(null)}
        onSaved={() => {
          void clients.reload()
          void stats.reload()
        }}
      />
    </div>
  )
}
