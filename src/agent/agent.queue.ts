import { closeSync, fdatasyncSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import type { Clock } from '../lib/clock'
import type { Logger } from '../lib/logger'
import { forEachRecord, type Head, parseRecord, type Position, QUEUE_DIR, type QueuedSample, readDisk, recordLine, segmentName } from './agent.queue-files'

/**
 * Bounds of the on-disk queue. A sample is ~3-4 KB of JSON, so the size bound holds about
 * two days of 10 s samples on a typical server; the age bound drops what the hub would
 * hardly chart anyway (its raw retention is shorter).
 */
export interface QueueLimits {
  maxBytes: number
  maxAgeMs: number
}

export const DEFAULT_QUEUE_LIMITS: QueueLimits = { maxBytes: 64 * 1024 * 1024, maxAgeMs: 7 * 24 * 3_600_000 }

/** A segment takes appends until it holds this much; then the next one starts. */
const SEGMENT_BYTES = 1024 * 1024

/**
 * Samples the hub did not take yet, oldest first, in append-only files in the agent's state
 * dir (`queue/`): they survive agent restarts and reboots. Each record is one line,
 * `<recorded_at ms> <sample JSON>`, appended and flushed to the disk (fdatasync) before the
 * agent moves on, in segments of about 1 MiB named by their first record's id. The file `head`
 * says where the oldest record still queued starts; it is replaced in one step (write, flush,
 * rename), and segments wholly before it are deleted.
 *
 * What a crash can leave is read back safely: a record cut off by a crash mid-append is
 * dropped at the next start (it was never answered for), and a record the hub took just before
 * a crash, whose removal was not yet written, is sent again (the hub recognises it, see
 * docs/agent.md). Plain files instead of SQLite keep the collector small: the database engine
 * alone cost it about 2.5 MB of resident memory.
 *
 * When a bound is passed, the oldest samples go first, with a log line saying how many.
 */
export function openQueue(stateDir: string, deps: { clock: Clock; log: Logger; limits?: QueueLimits }) {
  const limits = deps.limits ?? DEFAULT_QUEUE_LIMITS
  const dir = join(stateDir, QUEUE_DIR)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const headPath = join(dir, 'head')

  /** first id of each segment on disk, ascending, and the bytes in each */
  const segments: number[] = []
  const sizes = new Map<number, number>()
  let head: Head = { id: 0, segment: 0, offset: 0 }
  /** the id the next record gets */
  let nextId = 0
  let tailFd: number | null = null
  /** where the records the last read handed out end: the position after each */
  let handedOut = new Map<number, Position>()

  load()

  /** Reads the queue back, and tidies what a crash can leave (see above). */
  function load(): void {
    for (const name of readdirSync(dir)) if (name.endsWith('.tmp')) rmSync(join(dir, name), { force: true })
    const disk = readDisk(dir)
    segments.push(...disk.segments)
    for (const [k, v] of disk.sizes) sizes.set(k, v)
    head = disk.head
    nextId = disk.nextId
    while (segments.length && segments[0]! < head.segment) dropSegment(segments[0]!)
    const last = segments.at(-1)
    if (last !== undefined && disk.tailComplete < sizes.get(last)!) {
      const fd = openSync(join(dir, segmentName(last)), 'r+')
      try {
        ftruncateSync(fd, disk.tailComplete)
      } finally {
        closeSync(fd)
      }
      sizes.set(last, disk.tailComplete)
    }
  }

  /** Up to `n` records from the head; `stop` ends the walk early (it sees each one first). */
  function walk(n: number, stop?: (s: QueuedSample) => boolean): { items: QueuedSample[]; ends: Position[] } {
    const items: QueuedSample[] = []
    const ends: Position[] = []
    let id = head.id
    for (const segment of segments) {
      if (segment < head.segment) continue
      if (items.length >= n) break
      let halted = false
      forEachRecord(dir, segment, sizes.get(segment) ?? 0, segment === head.segment ? head.offset : 0, (record, end) => {
        const item = parseRecord(record, id++)
        if (stop?.(item)) {
          halted = true
          return false
        }
        items.push(item)
        ends.push({ segment, offset: end })
        return items.length < n
      })
      if (halted) break
    }
    return { items, ends }
  }

  /** Moves the head past a record (its end position), writes it, and deletes passed segments. */
  function advance(toId: number, end: Position): void {
    const next = segments.find((s) => s > end.segment)
    // at the end of a full segment, the head moves to the start of the next one
    head = next !== undefined && end.offset >= (sizes.get(end.segment) ?? 0) ? { id: toId, segment: next, offset: 0 } : { id: toId, ...end }
    // empty: the next sample starts a fresh segment, and every file before it goes
    if (head.id >= nextId) head = { id: nextId, segment: nextId, offset: 0 }
    writeHead()
    while (segments.length && segments[0]! < head.segment) dropSegment(segments[0]!)
  }

  function writeHead(): void {
    const tmp = `${headPath}.tmp`
    const fd = openSync(tmp, 'w', 0o600)
    try {
      writeSync(fd, `${head.id} ${head.segment} ${head.offset}\n`)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(tmp, headPath)
  }

  function dropSegment(first: number): void {
    if (first === segments.at(-1)) closeTail()
    rmSync(join(dir, segmentName(first)), { force: true })
    segments.splice(segments.indexOf(first), 1)
    sizes.delete(first)
  }

  function closeTail(): void {
    if (tailFd !== null) closeSync(tailFd)
    tailFd = null
  }

  function append(records: { body: string; recordedAt: number }[]): void {
    let last = segments.at(-1)
    if (last === undefined || (sizes.get(last) ?? 0) >= SEGMENT_BYTES) {
      closeTail()
      last = nextId
      segments.push(last)
      sizes.set(last, 0)
      if (head.id === nextId) head = { id: nextId, segment: last, offset: 0 }
    }
    tailFd ??= openSync(join(dir, segmentName(last)), 'a', 0o600)
    const text = records.map(recordLine).join('')
    const bytes = Buffer.from(text)
    const before = sizes.get(last) ?? 0
    try {
      let written = 0
      while (written < bytes.length) written += writeSync(tailFd, bytes, written)
      fdatasyncSync(tailFd)
    } catch (err) {
      // a full disk: leave no half record for the next append to run into
      ftruncateSync(tailFd, before)
      throw err
    }
    sizes.set(last, before + bytes.length)
    nextId += records.length
  }

  const queuedBytes = () => {
    let bytes = 0
    for (const s of segments) if (s >= head.segment) bytes += sizes.get(s) ?? 0
    return bytes - head.offset
  }

  /** Drops records from the head, 500 at a time, while `drop` says so; returns how many went. */
  function dropWhile(drop: (s: QueuedSample) => boolean): number {
    let dropped = 0
    for (;;) {
      const { items, ends } = walk(500, (s) => !drop(s))
      if (!items.length) return dropped
      advance(items.at(-1)!.id + 1, ends.at(-1)!)
      dropped += items.length
      if (items.length < 500) return dropped
    }
  }

  /** Drops by age, then the oldest until the size bound holds. */
  function enforce(): void {
    const cutoff = deps.clock.now() - limits.maxAgeMs
    const aged = dropWhile((s) => s.recordedAt < cutoff)
    if (aged) deps.log.warn('agent queue: dropped samples older than the age limit', { dropped: aged, max_age_hours: limits.maxAgeMs / 3_600_000 })
    let over = queuedBytes() - limits.maxBytes
    const evicted = dropWhile((s) => {
      if (over <= 0) return false
      over -= Buffer.byteLength(recordLine(s))
      return true
    })
    if (evicted) deps.log.warn('agent queue: full, dropped the oldest samples', { dropped: evicted, max_bytes: limits.maxBytes })
  }

  /** Several at once, with one flush to the disk. A body is one line of JSON (JSON.stringify's). */
  function pushMany(items: { body: string; recordedAt: number }[]): void {
    if (!items.length) return
    if (items.some((i) => i.body.includes('\n'))) throw new Error('agent queue: a sample body must be one line of JSON')
    append(items)
    enforce()
  }

  return {
    push(body: string, recordedAt: number): void {
      pushMany([{ body, recordedAt }])
    },
    pushMany,
    /** up to `n` samples, oldest first; they stay until `removeThrough` */
    oldest(n: number): QueuedSample[] {
      const { items, ends } = walk(n)
      handedOut = new Map(items.map((it, i) => [it.id, ends[i]!]))
      return items
    },
    /** Removes the sample with this id (one the last `oldest` gave) and every one before it. */
    removeThrough(id: number): void {
      if (id < head.id) return
      const end = handedOut.get(id)
      if (!end) throw new Error(`agent queue: sample ${id} was not read from the queue`)
      advance(id + 1, end)
    },
    size(): { count: number; bytes: number } {
      return { count: nextId - head.id, bytes: queuedBytes() }
    },
    close(): void {
      closeTail()
    },
  }
}

export type Queue = ReturnType<typeof openQueue>
