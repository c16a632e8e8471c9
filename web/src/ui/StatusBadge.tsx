import { Icon, type IconName } from './Icon'

type Tone = 'ok' | 'warn' | 'bad' | 'muted' | 'info'

/** Every status the portal shows: a word and an icon with its colour, so colour is never the only sign. */
const STATUSES: Record<string, { tone: Tone; icon: IconName; word: string }> = {
  online: { tone: 'ok', icon: 'check-circle', word: 'Online' },
  stale: { tone: 'warn', icon: 'clock', word: 'Stale' },
  offline: { tone: 'bad', icon: 'x-circle', word: 'Offline' },
  never: { tone: 'muted', icon: 'minus-circle', word: 'Never seen' },
  firing: { tone: 'bad', icon: 'bell', word: 'Firing' },
  acknowledged: { tone: 'warn', icon: 'check', word: 'Acknowledged' },
  resolved: { tone: 'ok', icon: 'check-circle', word: 'Resolved' },
  critical: { tone: 'bad', icon: 'x-circle', word: 'Critical' },
  warning: { tone: 'warn', icon: 'warning', word: 'Warning' },
  info: { tone: 'info', icon: 'info', word: 'Info' },
  active: { tone: 'ok', icon: 'check-circle', word: 'Active' },
  pending: { tone: 'warn', icon: 'clock', word: 'Pending' },
  invited: { tone: 'warn', icon: 'clock', word: 'Invited' },
  revoked: { tone: 'muted', icon: 'minus-circle', word: 'Revoked' },
}

export function StatusBadge({ status, label }: { status: string; label?: string }) {
  const s = STATUSES[status] ?? { tone: 'muted' as Tone, icon: 'info' as IconName, word: status.charAt(0).toUpperCase() + status.slice(1) }
  return (
    <span class={`badge badge-${s.tone}`}>
      <Icon name={s.icon} size={14} />
      {label ?? s.word}
    </span>
  )
}
