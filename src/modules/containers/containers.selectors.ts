import type { MetricWords, Selector } from '../alerts/runtime/alerts.selectors'
import type { ObservedContainer } from './containers.observe'

export const CONTAINER_SOURCE = 'containers'
export const CONTAINER_FIELDS = ['running', 'unhealthy', 'exit_code', 'restarts', 'oom_killed', 'missing', 'cpu_percent', 'memory_percent'] as const
type Field = (typeof CONTAINER_FIELDS)[number]

/** A name pattern: `*` any run of characters, `?` one; everything else literal. */
export function globMatcher(glob: string): (s: string) => boolean {
  if (!/[*?]/.test(glob)) return (s) => s === glob
  const re = new RegExp(
    `^${glob
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  )
  return (s) => re.test(s)
}

const WORDS: Record<Field, [string, string]> = {
  running: ['running (1) or not (0)', ''],
  unhealthy: ['unhealthy (1)', ''],
  exit_code: ['exit code', ''],
  restarts: ['restarts in 15 minutes', ''],
  oom_killed: ['killed for want of memory (1)', ''],
  missing: ['gone (1)', ''],
  cpu_percent: ['CPU', ' %'],
  memory_percent: ['memory used of its limit', ' %'],
}

/** "Container web exit code", "Container db CPU" (%) */
const containerWords = (field: Field, series: string): MetricWords => ({ label: `Container ${series} ${WORDS[field][0]}`, unit: WORDS[field][1] })

const LABEL = /^container\[([^=\]]{1,128})=([^\]]{0,512})\]:([a-z_]+)$/
const NAMED = /^container:(.+):([a-z_]+)$/

/**
 * Rules on containers: `container:<name-glob>:<field>` (`container:*:running`,
 * `container:web-?:memory_percent`) or by label `container[com.docker.compose.project=shop]:<field>`.
 * Each matching container is its own series (named after it). Null when the metric is not about
 * containers, so the next compiler in the chain reads it.
 */
export function compileContainerSelector(metric: string): Selector | { error: string } | null {
  if (!metric.startsWith('container:') && !metric.startsWith('container[')) return null
  const m = LABEL.exec(metric) ?? NAMED.exec(metric)
  if (!m) return { error: 'a container rule reads container:<name-pattern>:<field> or container[<label>=<value>]:<field>' }
  const byLabel = m.length === 4
  const field = m.at(-1) as Field
  if (!CONTAINER_FIELDS.includes(field)) return { error: `${field} is not a container field (${CONTAINER_FIELDS.join(', ')})` }
  const matches: (c: ObservedContainer) => boolean = byLabel
    ? (c) => c.labels[m[1]!] === m[2]
    : (() => {
        const name = globMatcher(m[1]!)
        return (c) => name(c.name)
      })()
  return {
    metric,
    source: CONTAINER_SOURCE,
    wildcard: true,
    read: () => null,
    words: (series) => containerWords(field, series),
    each(values) {
      const list = values.containers as ObservedContainer[] | undefined
      const out: [string, number][] = []
      for (const c of list ?? []) {
        const v = c[field]
        if (typeof v === 'number' && matches(c)) out.push([c.name, v])
      }
      return out
    },
  }
}
