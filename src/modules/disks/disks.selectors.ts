import type { MetricWords, Selector } from '../alerts/runtime/alerts.selectors'
import { globMatcher } from '../containers/containers.selectors'
import type { Disk } from './disks.model'

export const DISK_SOURCE = 'disks'
export const DISK_FIELDS = ['failing', 'reallocated_sectors', 'reallocated_growth', 'pending_sectors', 'nvme_percentage_used', 'temperature_c'] as const
type Field = (typeof DISK_FIELDS)[number]

const WORDS: Record<Field, [string, string]> = {
  failing: ['failing S.M.A.R.T. (1)', ''],
  reallocated_sectors: ['reallocated sectors', ''],
  reallocated_growth: ['reallocated sectors gained in 7 days', ''],
  pending_sectors: ['pending sectors', ''],
  nvme_percentage_used: ['wear (NVMe percentage used)', ' %'],
  temperature_c: ['temperature', ' °C'],
}
/** "Disk /dev/sda temperature" (°C); `failing`, a yes/no, says itself in sentences */
function diskWords(field: Field, disk: string): MetricWords {
  const words: MetricWords = { label: `Disk ${disk} ${WORDS[field][0]}`, unit: WORDS[field][1] }
  if (field !== 'failing') return words
  return {
    ...words,
    firing: (v) => (v === 1 ? `disk ${disk} is failing S.M.A.R.T.` : `disk ${disk} passes S.M.A.R.T.`),
    recovered: (v) => (v === 1 ? `disk ${disk} is failing S.M.A.R.T.` : `disk ${disk} passes S.M.A.R.T. again`),
  }
}

const NAMED = /^smart:(.+):([a-z_]+)$/

const read: Record<Field, (d: Disk) => number | null> = {
  failing: (d) => (d.failing ? 1 : 0),
  reallocated_sectors: (d) => d.reallocated_sectors,
  reallocated_growth: (d) => d.reallocated_growth_7d,
  pending_sectors: (d) => d.pending_sectors,
  nvme_percentage_used: (d) => d.nvme_percentage_used,
  temperature_c: (d) => d.temperature_c,
}

/**
 * Rules on S.M.A.R.T. readings: `smart:<disk-glob>:<field>` (`smart:*:failing`,
 * `smart:/dev/sda:temperature_c`), each disk its own series. Null when the metric is not about
 * disks' S.M.A.R.T., so the next compiler in the chain reads it.
 */
export function compileDiskSelector(metric: string): Selector | { error: string } | null {
  if (!metric.startsWith('smart:')) return null
  const m = NAMED.exec(metric)
  if (!m) return { error: 'a S.M.A.R.T. rule reads smart:<disk-pattern>:<field>' }
  const field = m[2] as Field
  if (!DISK_FIELDS.includes(field)) return { error: `${field} is not a S.M.A.R.T. field (${DISK_FIELDS.join(', ')})` }
  const name = globMatcher(m[1]!)
  return {
    metric,
    source: DISK_SOURCE,
    wildcard: true,
    read: () => null,
    words: (series) => diskWords(field, series),
    each(values) {
      const out: [string, number][] = []
      for (const d of (values.disks as Disk[] | undefined) ?? []) {
        const v = read[field](d)
        if (v !== null && name(d.name)) out.push([d.name, v])
      }
      return out
    },
  }
}
