import { useState } from 'preact/hooks'
import { api } from '../../lib/api'
import { canAdmin } from '../../lib/session'
import { Button, Card, ConfirmDialog, DataTable, EmptyState, SecretBox, Skeleton, StatusBadge, Time, type Column } from '../../ui'
import { KeyCreateForm } from '../KeyCreateForm'
import { ReadOnlyNote, SettingsHeader } from '../SettingsHeader'
import { LoadError } from '../../ui/LoadError'
import type { ApiKey, DeviceRef } from '../types'
import { useLoad } from '../../lib/use-load'

const deviceLabel = (devices: DeviceRef[], id: string | null) => {
  if (id === null) return 'All devices'
  const d = devices.find((x) => x.device_id === id)
  return d ? (d.name ?? d.hostname) : id
}

const expired = (k: ApiKey) => k.expires_at !== null && Date.parse(k.expires_at) <= Date.now()

/** API keys: what collectors and scrapers sign in with. Created here, shown once, revoked here. */
export default function KeysPage(_props: { params: Record<string, string> }) {
  const keys = useLoad(() => api.get<ApiKey[]>('/v1/auth/api-keys'))
  const devices = useLoad(() => api.get<DeviceRef[]>('/v1/clients/me/devices'))
  const [creating, setCreating] = useState(false)
  const [created, setCreated] = useState<ApiKey | null>(null)
  const [revoking, setRevoking] = useState<ApiKey | null>(null)
  const manage = canAdmin.value
  const deviceList = devices.data ?? []

  const onCreated = (key: ApiKey) => {
    setCreating(false)
    setCreated(key)
    void keys.reload()
  }

  const columns: Column<ApiKey>[] = [
    {
      key: 'name',
      label: 'Name',
      sortValue: (k) => k.name.toLowerCase(),
      render: (k) => (
        <div>
          <div class="strong">{k.name}</div>
          <code class="mono muted">{k.key_prefix}…</code>
        </div>
      ),
    },
    {
      key: 'scopes',
      label: 'Scopes',
      render: (k) => (
        <ul class="chips" aria-label="Scopes">
          {k.scopes.map((s) => (
            <li key={s} class="chip">
              {s}
            </li>
          ))}
        </ul>
      ),
    },
    { key: 'device', label: 'Device', render: (k) => deviceLabel(deviceList, k.device_id), sortValue: (k) => deviceLabel(deviceList, k.device_id) },
    {
      key: 'last_used_at',
      label: 'Last used',
      sortValue: (k) => k.last_used_at,
      render: (k) => (k.last_used_at ? <Time iso={k.last_used_at} relative /> : 'Never'),
    },
    {
      key: 'expires_at',
      label: 'Expires',
      sortValue: (k) => k.expires_at,
      render: (k) => (k.expires_at ? expired(k) ? <StatusBadge status="expired" label="Expired" /> : <Time iso={k.expires_at} /> : 'Never'),
    },
    { key: 'created_at', label: 'Created', sortValue: (k) => k.created_at, render: (k) => <Time iso={k.created_at} /> },
  ]
  if (manage)
    columns.push({
      key: 'actions',
      label: <span class="visually-hidden">Actions</span>,
      align: 'right',
      render: (k) => (
        <Button small variant="danger" onClick={() => setRevoking(k)} aria-label={`Revoke ${k.name}`}>
          Revoke
        </Button>
      ),
    })

  const active = keys.data?.filter((k) => k.is_active) ?? []
  const revoked = keys.data?.filter((k) => !k.is_active) ?? []

  return (
    <div class="page-stack">
      <SettingsHeader
        title="API keys"
        subtitle="Collectors send metrics with an API key; a key with metrics:read lets Prometheus scrape your devices."
        actions={
          manage && !creating ? (
            <Button variant="primary" onClick={() => setCreating(true)}>
              Create key
            </Button>
          ) : undefined
        }
      />
      {!manage && <ReadOnlyNote>You can see the keys of this account; an owner or admin creates and revokes them.</ReadOnlyNote>}
      {created?.api_key && (
        <Card title={`Key “${created.name}” created`}>
          <SecretBox value={created.api_key} label="API key" />
          <div class="form-actions">
            <Button onClick={() => setCreated(null)}>Done</Button>
          </div>
        </Card>
      )}
      {creating && <KeyCreateForm devices={deviceList} onCreated={onCreated} onCancel={() => setCreating(false)} />}
      <Card title="Active keys">
        {keys.error ? <LoadError error={keys.error} retry={keys.reload} /> : null}
        {keys.data === null ? (
          keys.error ? null : (
            <Skeleton lines={3} height={40} label="Loading API keys" />
          )
        ) : (
          <DataTable
            caption="Active API keys"
            columns={columns}
            rows={active}
            rowKey={(k) => k.key_id}
            empty={
              <EmptyState
                title="No API keys yet"
                icon="key"
                action={
                  manage && !creating ? (
                    <Button variant="primary" onClick={() => setCreating(true)}>
                      Create a key
                    </Button>
                  ) : undefined
                }
              >
                A collector needs a key to send metrics. Adding a device from the dashboard makes one for you; create one here for scripts or Prometheus.
              </EmptyState>
            }
          />
        )}
      </Card>
      {revoked.length > 0 && (
        <details class="card revoked">
          <summary>Revoked keys ({revoked.length})</summary>
          <ul class="plain-list">
            {revoked.map((k) => (
              <li key={k.key_id}>
                <StatusBadge status="revoked" /> <span class="strong">{k.name}</span> <code class="mono muted">{k.key_prefix}…</code>
                <span class="muted"> · last used {k.last_used_at ? <Time iso={k.last_used_at} relative /> : 'never'}</span>
              </li>
            ))}
          </ul>
        </details>
      )}
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke “${revoking?.name ?? ''}”?`}
        confirmLabel="Revoke key"
        danger
        onClose={() => setRevoking(null)}
        onConfirm={async () => {
          await api.del(`/v1/auth/api-keys/${encodeURIComponent(revoking!.key_id)}`)
          await keys.reload()
        }}
      >
        <p>
          Every collector or script using <code class="mono">{revoking?.key_prefix}…</code> is refused from its next request. This cannot be undone: a new key
          has to be created and installed.
        </p>
      </ConfirmDialog>
    </div>
  )
}
