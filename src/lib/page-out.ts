import { openLibc } from './libc'
import { yieldToRequests } from './yield'

/**
 * Hands the executable's pages back to the kernel once start-up is over. Start-up runs code no
 * request runs again (loading and checking the bundle, the migrations' check, SQLite's schema
 * parser, building ~140 routes), and every page of the executable it touched stayed mapped, and
 * counted in the process's RSS, for as long as the process lives. MADV_PAGEOUT asks the kernel to
 * reclaim a range: it unmaps the pages only this process maps and frees those it can; pages
 * other processes map too (the C library) are left. The pages of the executable's data the
 * process wrote (about 50, 200 KB) are its own memory: without swap they stay, with swap they are
 * written there and read back when next used (nothing is lost). Advising only the runs between
 * them, found in /proc/self/pagemap, cost 4 MB more: the JIT compiled the scan's loop after the
 * advice, mapping its compiler's code again. Measured on Linux 6.18: the hub's file-backed RSS
 * went from 35 to 4 MB, while most of those pages stayed in the page cache, mapped by no process:
 * memory the kernel reclaims as any cached file data when it needs some. A page used again is
 * mapped from the page cache on first touch, or read back from the file if it was freed.
 */

/** MADV_PAGEOUT, the same number on every Linux architecture (asm-generic/mman-common.h) */
export const MADV_PAGEOUT = 21

export interface Range {
  start: bigint
  end: bigint
}

/** The ranges of `/proc/self/maps` (its text) that map the file `path`. */
export function mappingsOf(maps: string, path: string): Range[] {
  const ranges: Range[] = []
  for (const line of maps.split('\n')) {
    // address perms offset dev inode path (the path may contain spaces)
    const m = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s+(.*)$/.exec(line)
    if (m?.[3] === path) ranges.push({ start: BigInt(`0x${m[1]}`), end: BigInt(`0x${m[2]}`) })
  }
  return ranges
}

export type Madvise = (start: bigint, length: bigint, advice: number) => number

/**
 * The most advised in one call. The kernel reclaims the pages within the call, on the thread that
 * makes it: the hub's whole executable (about 120 MB) in one call held the event loop 80 to 90 ms
 * on the 2.0 GHz test machine, at every start and after every self-publish; 4 MB slices hold it
 * about 2 to 8 ms each.
 */
export const PAGE_OUT_SLICE = 4n << 20n

/**
 * Advises MADV_PAGEOUT over every mapping of `path`, a slice at a time with `pause` between
 * slices (a turn of the event loop); how many ranges the kernel took whole. A kernel without
 * MADV_PAGEOUT (before 5.4) refuses each one, and nothing changes.
 */
export async function pageOut(maps: string, path: string, madvise: Madvise, pause: () => Promise<void> = yieldToRequests): Promise<number> {
  let taken = 0
  for (const r of mappingsOf(maps, path)) {
    let took = true
    for (let at = r.start; at < r.end; at += PAGE_OUT_SLICE) {
      if (madvise(at, r.end - at < PAGE_OUT_SLICE ? r.end - at : PAGE_OUT_SLICE, MADV_PAGEOUT) !== 0) took = false
      await pause()
    }
    if (took) taken++
  }
  return taken
}

let loaded: Promise<Madvise | null> | undefined

/**
 * madvise(2) from the C library (lib/libc.ts), or null where it cannot be had. Loaded once, on
 * first use: bun:ffi compiles a small trampoline into memory of its own, which a second load
 * would compile again.
 */
export function libcMadvise(): Promise<Madvise | null> {
  loaded ??= Promise.resolve(loadMadvise())
  return loaded
}

function loadMadvise(): Madvise | null {
  const libc = openLibc({ madvise: { args: ['u64', 'u64', 'i32'], returns: 'i32' } })
  return libc && ((start, length, advice) => libc.madvise(start, length, advice) as number)
}

/** This process's file-backed resident memory, in MB (`RssFile` of /proc/self/status). */
export function fileBackedMb(status: string): number {
  return Math.round(Number(/RssFile:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 102.4) / 10
}

export interface PagedOut {
  /** how many of the executable's mappings the kernel took */
  ranges: number
  /** the process's file-backed RSS just before and just after, in MB */
  fileBackedMb: { before: number; after: number }
}

/**
 * Pages out this process's own executable (`/proc/self/exe`, as `/proc/self/maps` names it, also
 * once an upgrade replaced the file); null where madvise cannot be had.
 */
export async function pageOutExecutable(madvise: () => Promise<Madvise | null> = libcMadvise): Promise<PagedOut | null> {
  const advise = await madvise()
  if (!advise) return null
  const { readFileSync, readlinkSync } = await import('node:fs')
  const before = fileBackedMb(readFileSync('/proc/self/status', 'utf8'))
  const ranges = await pageOut(readFileSync('/proc/self/maps', 'utf8'), readlinkSync('/proc/self/exe'), advise)
  return { ranges, fileBackedMb: { before, after: fileBackedMb(readFileSync('/proc/self/status', 'utf8')) } }
}
