/**
 * Human units for chart axes, legends and the text alternative. Pure: the same numbers give the
 * same words in a test and in the browser. Missing values (null, NaN, ±Infinity) read as '—'.
 */
export type Unit = 'percent' | 'bytes' | 'mib' | 'bytes_per_s' | 'per_s' | 'celsius' | 'mbps' | 'ms' | 'rpm' | 'dbm' | 'mhz' | 'count'

export const DASH = '—'

const BINARY = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB']

const finite = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v)

/** Fewer decimals as numbers grow: 0.42, 4.2, 42, 420 (a legend stays narrow, an axis stays readable). */
export function fixed(v: number, max = 2): string {
  const a = Math.abs(v)
  const digits = a === 0 || a >= 100 ? 0 : a >= 10 ? Math.min(1, max) : Math.min(2, max)
  const s = trimZeros(v.toFixed(digits))
  // "-0" from rounding a tiny negative is noise
  return s === '-0' ? '0' : s
}

function trimZeros(s: string): string {
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s
}

/** How a number is written: `fixed` by default; an axis whose ticks are close asks for more digits. */
type Digits = (v: number, max?: number) => string

/** 1536 → "1.5 KiB"; binary steps (1024), as operating systems report memory and disks */
export function binaryBytes(v: number | null | undefined, suffix = '', num: Digits = fixed): string {
  if (!finite(v)) return DASH
  const sign = v < 0 ? '-' : ''
  let n = Math.abs(v)
  let i = 0
  while (n >= 1024 && i < BINARY.length - 1) {
    n /= 1024
    i++
  }
  return `${sign}${i === 0 && num === fixed ? Math.round(n) : num(n)} ${BINARY[i]}${suffix}`
}

export function formatUnit(unit: Unit, v: number | null | undefined, num: Digits = fixed): string {
  if (!finite(v)) return DASH
  const whole = (x: number) => (num === fixed ? String(Math.round(x)) : num(x))
  switch (unit) {
    case 'percent':
      return `${num(v, 1)}%`
    case 'bytes':
      return binaryBytes(v, '', num)
    case 'mib':
      return binaryBytes(v * 1024 * 1024, '', num)
    case 'bytes_per_s':
      return binaryBytes(v, '/s', num)
    case 'per_s':
      return `${num(v)}/s`
    case 'celsius':
      return `${num(v, 1)} °C`
    case 'mbps':
      return `${num(v)} Mbps`
    case 'ms':
      return v >= 1000 ? `${num(v / 1000)} s` : `${num(v, 1)} ms`
    case 'rpm':
      return `${whole(v)} rpm`
    case 'dbm':
      return `${whole(v)} dBm`
    case 'mhz':
      return v >= 1000 ? `${num(v / 1000)} GHz` : `${whole(v)} MHz`
    case 'count':
      return num(v)
  }
}

/**
 * The unit a series is measured in, from its name as the series endpoint gives it (`cpu_percent`,
 * `disk_partitions:/home`, `temperatures:coretemp`, `gpus:0:memory_used_bytes`, …).
 */
export function unitOf(series: string): Unit {
  const family = series.split(':', 1)[0]!
  const leaf = series.slice(series.lastIndexOf(':') + 1)
  if (family === 'cpu_per_core' || family === 'disk_partitions') return 'percent'
  if (family === 'temperatures') return 'celsius'
  if (family === 'fans') return 'rpm'
  const name = series.includes(':') ? leaf : series
  if (/(^|_)dbm$/.test(name) || name === 'signal') return 'dbm'
  if (/percent$|_load$|^load$|^utilization$/.test(name)) return 'percent'
  if (/_c$|^temp|temperature/.test(name)) return 'celsius'
  if (/mbps$/.test(name)) return 'mbps'
  if (/_ms$/.test(name)) return 'ms'
  if (/bytes_per_sec?$|_bps$/.test(name)) return 'bytes_per_s'
  if (/_per_sec?$/.test(name)) return 'per_s'
  if (/_mb$|_mib$/.test(name)) return 'mib'
  if (/bytes$|_bytes_|^bytes/.test(name)) return 'bytes'
  if (/rpm$/.test(name)) return 'rpm'
  if (/mhz$|^cpu_freq_/.test(name)) return 'mhz'
  return 'count'
}

/** An axis tick: like formatUnit, but whole-number units keep decimals when the ticks are close (-53.5 dBm). */
export function formatTick(unit: Unit, v: number | null | undefined): string {
  if (!finite(v)) return ''
  if (unit === 'dbm') return `${fixed(v)} dBm`
  if (unit === 'rpm') return `${fixed(v)} rpm`
  return formatUnit(unit, v)
}

/**
 * An axis's tick labels, each one different: as formatTick writes them, and where two come out the
 * same (0.0012 and 0.0014 Mbps both "0 Mbps"), with as many decimals as it takes to tell them apart.
 */
export function formatTicks(unit: Unit, splits: (number | null)[]): string[] {
  const plain = splits.map((v) => formatTick(unit, v))
  if (distinct(plain)) return plain
  for (let digits = 1; digits <= 8; digits++) {
    const num: Digits = (x) => {
      const s = trimZeros(x.toFixed(digits))
      return s === '-0' ? '0' : s
    }
    const labels = splits.map((v) => (finite(v) ? formatUnit(unit, v, num) : ''))
    if (distinct(labels)) return labels
  }
  return plain
}

const distinct = (labels: string[]) => {
  const shown = labels.filter(Boolean)
  return new Set(shown).size === shown.length
}
