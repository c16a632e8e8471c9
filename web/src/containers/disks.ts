/** What the device page says of a disk's S.M.A.R.T. health. Pure. */
import { number } from '../lib/format'
import type { Badge } from './containers'
import type { Disk } from './types'

/** The health badge: failing as the hub judges it, passed only when smartctl said so. */
export function diskBadge(d: Pick<Disk, 'failing' | 'passed'>): Badge {
  if (d.failing) return { tone: 'bad', icon: 'x-circle', word: 'Failing' }
  if (d.passed === true) return { tone: 'ok', icon: 'check-circle', word: 'Passed' }
  return { tone: 'muted', icon: 'info', word: 'Not assessed' }
}

/** Why a disk is failing, or close to it, in words a person can act on. */
export function diskConcerns(d: Disk): string[] {
  const out: string[] = []
  if (d.passed === false) out.push('smartctl’s overall assessment failed')
  if ((d.pending_sectors ?? 0) > 0)
    out.push(`${number(d.pending_sectors)} pending ${plural(d.pending_sectors!, 'sector')} (unreadable, waiting to be reallocated)`)
  if ((d.uncorrectable_sectors ?? 0) > 0) out.push(`${number(d.uncorrectable_sectors)} uncorrectable ${plural(d.uncorrectable_sectors!, 'sector')}`)
  if ((d.reallocated_growth_7d ?? 0) > 0)
    out.push(`${number(d.reallocated_growth_7d)} more reallocated ${plural(d.reallocated_growth_7d!, 'sector')} in 7 days`)
  if ((d.nvme_media_errors ?? 0) > 0) out.push(`${number(d.nvme_media_errors)} NVMe media ${plural(d.nvme_media_errors!, 'error')}`)
  if ((d.nvme_percentage_used ?? 0) >= 90) out.push(`${d.nvme_percentage_used}% of its rated endurance used`)
  return out
}

const plural = (n: number, word: string) => (n === 1 ? word : `${word}s`)

/** Power-on time: hours as smartctl counts them, and the years or days they make. */
export function powerOn(hours: number | null): string {
  if (hours === null) return '—'
  const days = hours / 24
  const span = days >= 365 ? `${(days / 365).toFixed(1)} years` : days >= 1 ? `${Math.floor(days)} ${Math.floor(days) === 1 ? 'day' : 'days'}` : null
  return `${number(hours)} h${span ? ` (${span})` : ''}`
}

/** NVMe wear as smartctl gives it: the share of the rated endurance used (it may pass 100). */
export const wear = (d: Pick<Disk, 'kind' | 'nvme_percentage_used'>) => (d.nvme_percentage_used === null ? '—' : `${d.nvme_percentage_used}% used`)

/** What to do when the collector could not read S.M.A.R.T., beside its own reason. */
export function smartAdvice(reason: string | null): string {
  if (reason && /not found|install/i.test(reason))
    return 'On Debian or Ubuntu: sudo apt install smartmontools, then restart the collector (sudo systemctl restart vigil-agent) so it finds smartctl.'
  if (reason && /may not|permission|denied|CAP_SYS/i.test(reason))
    return 'smartctl needs root or the CAP_SYS_RAWIO and CAP_SYS_ADMIN capabilities to open the disks: grant them to the collector’s service, then restart it.'
  return 'Virtual machines’ disks and many USB enclosures do not answer S.M.A.R.T.; a physical disk attached directly does.'
}
