import { readFileSync, readdirSync } from 'node:fs'

/**
 * This process's open file descriptors and its limit on them (the soft one, which the kernel
 * enforces), from /proc; null where there is no /proc (not Linux). The hub keeps a descriptor per
 * connection and per metric file it reads (at most 128 of those), so an operator watches the two.
 */
export function processFds(): { open: number; max: number | null } | null {
  let open: number
  try {
    // the listing's own descriptor is counted too, as Prometheus' process collectors count it
    open = readdirSync('/proc/self/fd').length
  } catch {
    return null
  }
  let max: number | null = null
  try {
    const line = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'))
    if (line && line[1] !== 'unlimited') max = Number(line[1])
  } catch {
    // the count alone
  }
  return { open, max }
}
