/**
 * The Prometheus text exposition format, version 0.0.4: one HELP and one TYPE line per family,
 * then its samples. Written by hand: the format is a few rules, and a client library would bring
 * its own registry, which the fleet part (rebuilt from the database on every scrape) cannot use.
 */
export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8'

export type MetricType = 'counter' | 'gauge' | 'histogram'

/** A label value as the format wants it: backslash, double quote and newline escaped. */
export const escapeLabelValue = (v: string) => v.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`))

/** HELP text escapes only backslash and newline. */
const escapeHelp = (v: string) => v.replace(/[\\\n]/g, (c) => (c === '\n' ? '\\n' : '\\\\'))

/** Go's float formatting as Prometheus reads it: NaN, +Inf, -Inf, else the shortest decimal. */
export function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN'
  if (v === Infinity) return '+Inf'
  if (v === -Infinity) return '-Inf'
  return String(v)
}

/** `{a="x",b="y"}` from pairs, or '' for none; names are ours and need no escaping. */
export function labelText(labels: readonly (readonly [string, string])[]): string {
  if (!labels.length) return ''
  let out = '{'
  for (let i = 0; i < labels.length; i++) out += `${(i ? ',' : '') + labels[i]![0]}="${escapeLabelValue(labels[i]![1])}"`
  return `${out}}`
}

/** Adds one label to an already formatted label set (the `le` of a histogram bucket). */
const withLabel = (labels: string, name: string, value: string) => (labels ? `${labels.slice(0, -1)},${name}="${value}"}` : `{${name}="${value}"}`)

/** Accumulates one exposition; families must be written whole, one after the other. */
export class Exposition {
  private parts: string[] = []

  family(name: string, type: MetricType, help: string): this {
    this.parts.push(`# HELP ${name} ${escapeHelp(help)}\n# TYPE ${name} ${type}\n`)
    return this
  }

  /** one sample; `labels` is labelText's output */
  sample(name: string, labels: string, value: number): this {
    this.parts.push(`${name}${labels} ${formatValue(value)}\n`)
    return this
  }

  /**
   * A histogram's series: `counts` per bucket (not cumulative, the last one beyond the last
   * bound), written cumulative with the closing +Inf bucket, then _sum and _count.
   */
  histogram(name: string, labels: string, bounds: readonly number[], counts: ArrayLike<number>, sum: number): this {
    let seen = 0
    for (let i = 0; i < bounds.length; i++) {
      seen += counts[i]!
      this.sample(`${name}_bucket`, withLabel(labels, 'le', formatValue(bounds[i]!)), seen)
    }
    seen += counts[bounds.length]!
    this.sample(`${name}_bucket`, withLabel(labels, 'le', '+Inf'), seen)
    this.sample(`${name}_sum`, labels, sum)
    return this.sample(`${name}_count`, labels, seen)
  }

  text(): string {
    return this.parts.join('')
  }
}
