/**
 * The SVG path of a series: one sub-path per run of values, so a null is a gap. A value alone
 * between gaps becomes a dot (a zero-length segment, drawn with round caps). Pure.
 */
export function sparkPath(values: (number | null)[], width: number, height: number, min = 0, max = 100): string {
  if (values.length === 0) return ''
  const step = values.length > 1 ? width / (values.length - 1) : 0
  const span = max - min || 1
  const known = (v: number | null | undefined): v is number => v != null && Number.isFinite(v)
  let d = ''
  values.forEach((v, i) => {
    if (!known(v)) return
    const clamped = Math.min(max, Math.max(min, v))
    const x = (i * step).toFixed(1)
    const y = (height - ((clamped - min) / span) * height).toFixed(1)
    const joined = i > 0 && known(values[i - 1])
    d += `${joined ? 'L' : 'M'}${x} ${y}`
    if (!joined && !known(values[i + 1])) d += 'h0'
  })
  return d
}
