/** Semantic versions (semver.org 2.0): MAJOR.MINOR.PATCH[-prerelease][+build], an optional leading "v". */
export const SEMVER_PATTERN =
  '^v?(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-([0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*))?(?:\\+([0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*))?$'
const SEMVER = new RegExp(SEMVER_PATTERN)

interface Parsed {
  core: [number, number, number]
  pre: string[]
}

function parse(v: string): Parsed | null {
  const m = SEMVER.exec(v)
  if (!m) return null
  return { core: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] ? m[4].split('.') : [] }
}

function comparePre(a: string[], b: string[]): number {
  // A release outranks its pre-releases: 1.0.0 > 1.0.0-rc.1.
  if (!a.length || !b.length) return (a.length ? -1 : 0) + (b.length ? 1 : 0)
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i]
    const y = b[i]
    if (x === undefined) return -1
    if (y === undefined) return 1
    const xn = /^\d+$/.test(x)
    const yn = /^\d+$/.test(y)
    if (xn && yn && Number(x) !== Number(y)) return Number(x) - Number(y)
    if (xn !== yn) return xn ? -1 : 1 // numeric identifiers rank below alphanumeric ones
    if (x !== y) return x < y ? -1 : 1
  }
  return 0
}

/** Precedence order (1.10.0 > 1.9.3); build metadata is ignored. Unparseable versions sort lowest. */
export function compareSemver(a: string, b: string): number {
  const pa = parse(a)
  const pb = parse(b)
  if (!pa || !pb) return (pa ? 1 : 0) - (pb ? 1 : 0)
  for (let i = 0; i < 3; i++) if (pa.core[i] !== pb.core[i]) return pa.core[i]! - pb.core[i]!
  return comparePre(pa.pre, pb.pre)
}

export const isSemver = (v: string) => SEMVER.test(v)
