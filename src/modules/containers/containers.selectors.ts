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

const times = (n: number) => (n === 1 ? '1 time' : `${n} times`)

/** A field's label and unit; a yes/no or event field says itself in sentences of the value it has. */
const WORDS: Record<Field, (c: string) => MetricWords> = {
  running: (c) => ({
    label: `Container ${c} running (1) or not (0)`,
    unit: '',
    firing: (v) => (v === 1 ? `container ${c} is running` : `container ${c} is not running`),
    recovered: (v) => (v === 1 ? `container ${c} is running again` : `container ${c} is no longer running`),
  }),
  unhealthy: (c) => ({
    label: `Container ${c} unhealthy (1)`,
    unit: '',
    firing: (v) => (v === 1 ? `container ${c} is unhealthy` : `container ${c} is not unhealthy`),
    recovered: (v) => (v === 1 ? `container ${c} is unhealthy again` : `container ${c} is no longer unhealthy`),
  }),
  exit_code: (c) => ({
    label: `Container ${c} exit code`,
    unit: '',
    firing: (v) => (v ? `container ${c} exited with code ${v}` : `container ${c} has no error exit code`),
    recovered: (v) => (v ? `container ${c} exited with code ${v}` : `container ${c} is no longer stopped with an error`),
  }),
  restarts: (c) => ({
    label: `Container ${c} restarts in 15 minutes`,
    unit: '',
    firing: (v) => `container ${c} restarted ${times(v ?? 0)} in 15 min`,
    recovered: (v) => `container ${c} restarts settled (${times(v)} in 15 min)`,
  }),
  oom_killed: (c) => ({
    label: `Container ${c} killed for want of memory (1)`,
    unit: '',
    firing: (v) => (v === 1 ? `container ${c} was OOM-killed` : `container ${c} was not OOM-killed`),
    recovered: (v) => (v === 1 ? `container ${c} was OOM-killed` : `container ${c} is no longer marked OOM-killed`),
  }),
  missing: (c) => ({
    label: `Container ${c} gone while running (1)`,
    unit: '',
    firing: (v) => (v === 1 ? `container ${c} is gone (it was running)` : `container ${c} is present`),
    recovered: (v) => (v === 1 ? `container ${c} is gone (it was running)` : `container ${c} is back`),
  }),
  cpu_percent: (c) => ({ label: `Container ${c} CPU`, unit: ' %' }),
  memory_percent: (c) => ({ label: `Container ${c} memory used of its limit`, unit: ' %' }),
}

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
    words: (series) => WORDS[field](series),
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
