import { Icon } from '../ui'
import type { Badge } from './containers'

/** A state as the portal shows every status: word, icon and colour together (never colour alone). */
export function ToneBadge({ badge }: { badge: Badge }) {
  return (
    <span class={`badge badge-${badge.tone}`}>
      <Icon name={badge.icon} size={14} />
      {badge.word}
    </span>
  )
}
