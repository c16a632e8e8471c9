import { useState } from 'preact/hooks'
import { api } from '../lib/api'
import { bytes, duration } from '../lib/format'
import { Link, navigate } from '../lib/router'
import { Button, ConfirmDialog, Field, Form, Icon, PageHeader } from '../ui'
import { displayName } from './fleet'
import { Ago, PresenceBadge } from './Ago'
import type { Device } from './device-types'
import type { HardwareRecord } from '../../../src/modules/metrics/metrics.model'

export type { Device } from './device-types'

/** What the header shows beside the device: how often it reports and its alerts firing. */
export interface DeviceFacts {
  interval_seconds: number | null
  alerts_firing: number
}

/** The facts of the newest hardware sample the header shows. */
export type HardwareFacts = Partial<Pick<HardwareRecord, 'cpu_brand' | 'cpu_count_physical' | 'cpu_count_logical' | 'ram_total_gb' | 'swap_total_gb'>>

const GIB = 1024 ** 3

function cores(hw: HardwareFacts | null): string {
  if (!hw?.cpu_count_logical && !hw?.cpu_count_physical) return '—'
  const { cpu_count_physical: p, cpu_count_logical: l } = hw
  return p && l && p !== l ? `${p} cores, ${l} threads` : `${p ?? l} cores`
}

/** Tags as typed (comma or space separated): the API checks each (a-z, 0-9, . _ -). */
export const parseTags = (s: string) => [...new Set(s.split(/[\s,]+/).filter(Boolean))]

/**
 * The device's header: its name (an owner or admin renames it and sets its tags in place), its
 * status, what it is, and deleting it behind a confirmation.
 */
export function DeviceHeader({
  device,
  hardware,
  facts,
  canEdit,
  onChange,
}: {
  device: Device
  hardware: HardwareFacts | null
  /** its reporting interval (null until measured) and its alerts firing; null while they load */
  facts: DeviceFacts | null
  canEdit: boolean
  onChange: (d: Device) => void
}) {
  const [editing, setEditing] = useState(false)
  const [deleting, setDeleting] = useState(false)
  const id = encodeURIComponent(device.device_id)

  const save = async (form: FormData) => {
    const name = String(form.get('name') ?? '').trim()
    const tags = parseTags(String(form.get('tags') ?? '').toLowerCase())
    const updated = await api.patch<Device>(`/v1/clients/me/devices/${id}`, { name: name || null, tags })
    onChange(updated)
    setEditing(false)
  }

  const remove = async () => {
    await api.del(`/v1/clients/me/devices/${id}`)
    navigate('/dashboard')
  }

  const title = displayName({ name: device.name, hostname: device.hostname, id: device.device_id })
  return (
    <>
      <PageHeader
        title={
          <span class="vg-device-title">
            {title} <PresenceBadge lastSeen={device.last_seen_at} intervalSeconds={facts?.interval_seconds ?? null} />
          </span>
        }
        docTitle={title}
        subtitle={device.name && device.hostname && device.name !== device.hostname ? `Host name ${device.hostname}` : undefined}
        actions={
          canEdit && !editing ? (
            <>
              <Button onClick={() => setEditing(true)}>Rename or tag</Button>
              <Button variant="danger" onClick={() => setDeleting(true)}>
                Delete
              </Button>
            </>
          ) : undefined
        }
      />
      {editing && (
        <Form
          onSubmit={save}
          submitLabel="Save"
          label="Rename the device"
          class="vg-edit-form"
          secondary={<Button onClick={() => setEditing(false)}>Cancel</Button>}
        >
          <Field
            name="name"
            label="Name"
            defaultValue={device.name ?? ''}
            maxLength={100}
            hint={`Leave empty to show the host name${device.hostname ? ` (${device.hostname})` : ''}.`}
            autoFocus
          />
          <Field
            name="tags"
            label="Tags"
            defaultValue={device.tags.join(', ')}
            hint="Separated by commas or spaces; lower-case letters, digits, dot, dash and underscore."
          />
        </Form>
      )}
      {facts && facts.alerts_firing > 0 && (
        <p class="vg-alerts-firing">
          <Link href={`/alerts?device=${id}`}>
            <Icon name="bell" size={14} /> {facts.alerts_firing} {facts.alerts_firing === 1 ? 'alert' : 'alerts'} firing
          </Link>
        </p>
      )}
      {device.tags.length > 0 && (
        <ul class="vg-tags" aria-label="Tags">
          {device.tags.map((t) => (
            <li key={t} class="vg-tag">
              {t}
            </li>
          ))}
        </ul>
      )}
      <dl class="vg-facts">
        <div>
          <dt>CPU</dt>
          <dd>{hardware?.cpu_brand || '—'}</dd>
        </div>
        <div>
          <dt>Cores</dt>
          <dd>{cores(hardware)}</dd>
        </div>
        <div>
          <dt>Memory</dt>
          <dd>{hardware?.ram_total_gb != null ? bytes(hardware.ram_total_gb * GIB) : '—'}</dd>
        </div>
        <div>
          <dt>System</dt>
          <dd>{[device.os, device.os_version].filter(Boolean).join(' ') || '—'}</dd>
        </div>
        <div>
          <dt>Architecture</dt>
          <dd>{device.arch || '—'}</dd>
        </div>
        <div>
          <dt>Last seen</dt>
          <dd>{device.last_seen_at ? <Ago iso={device.last_seen_at} /> : 'never'}</dd>
        </div>
        <div>
          <dt>Reports every</dt>
          <dd>{facts?.interval_seconds ? duration(facts.interval_seconds) : '—'}</dd>
        </div>
      </dl>
      <ConfirmDialog open={deleting} title={`Delete ${title}?`} confirmLabel="Delete the device" danger onConfirm={remove} onClose={() => setDeleting(false)}>
        <p>
          Deleting removes the device and its history: metrics, recommendations and alerts. The API keys bound to it are revoked, so a collector installed with
          its own key stops.
        </p>
        <p>
          A collector or script still running with another key that works comes back as a new device at its next report. To stop it, revoke its key under{' '}
          <Link href="/settings/keys">Settings → API keys</Link> or uninstall the collector from the machine.
        </p>
      </ConfirmDialog>
    </>
  )
}
