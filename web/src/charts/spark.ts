/** The SVG path of a series: one sub-path per run of values, so a null is a gap. Pure. */
export function sparkPath(values: (number | null)[], width: number, height: number, min = 0, max = 100): string {
  if (values.length === 0) return ''
  const step = values.length > 1 ? width / (values.length - 1) : 0
  const span = max - min || 1
  let d = ''
  let pen = false
  values.forEach((v, i) => {
    if (v == null || !Number.isFinite(v)) {
      pen = false
      return
    }
    const clamped = Math.min(max, Math.max(min, v))
    const x = (i * step).toFixed(1)
    const y = (height - ((clamped - min) / span) * height).toFixed(1)
    d += `${pen ? 'L' : 'M'}${x} ${y}`
    pen = true
  })
  return d
}
