import { api } from '../lib/api'
import { Link } from '../lib/router'
import { useLoad } from '../lib/use-load'
import { countState } from './check-list'
import type { CheckListItem } from './types'
import { usePoll } from './usePoll'

/**
 * The dashboard's line about checks beside its devices: how many are down (a link to the list,
 * which shows them first), or that all are up. Nothing while the account has no checks.
 */
export function ChecksDownNote() {
  const checks = useLoad(() => api.get<CheckListItem[]>('/v1/checks'))
  usePoll(checks.reload)
  const list = checks.data
  if (!list?.length) return null
  const down = countState(list, 'down')
  return (
    <>
      {' · '}
      <Link href="/checks" class={down ? 'ck-down-link' : undefined}>
        {down ? `${down} ${down === 1 ? 'check' : 'checks'} down` : `${list.length} ${list.length === 1 ? 'check' : 'checks'}, none down`}
      </Link>
    </>
  )
}
