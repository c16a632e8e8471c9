import { StatusBadge } from '../ui'

/** Delivery states as badges: a word and an icon with its colour (never colour alone). */
const LOOK: Record<string, { status: string; label: string }> = {
  delivered: { status: 'online', label: 'Delivered' },
  succeeded: { status: 'online', label: 'Delivered' },
  failed: { status: 'offline', label: 'Failed' },
  pending: { status: 'pending', label: 'Queued' },
  sending: { status: 'pending', label: 'Sending' },
  held: { status: 'never', label: 'Held' },
}

export function DeliveryStatus({ status }: { status: string }) {
  const l = LOOK[status] ?? { status, label: status }
  return <StatusBadge status={l.status} label={l.label} />
}

/** A channel's or an endpoint's switch as a badge. */
export function EnabledBadge({ enabled, reason }: { enabled: boolean; reason?: string | null }) {
  if (enabled) return <StatusBadge status="active" label="Enabled" />
  return <StatusBadge status="revoked" label={reason ? `Disabled (${reason})` : 'Disabled'} />
}
