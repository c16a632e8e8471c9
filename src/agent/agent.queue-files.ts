import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The collector queue's files as they are on disk, read without changing them: the record
 * format, the segments, the head, and what a crash can have left at the tail. The queue
 * (agent.queue.ts) writes through its own handle; readers such as queuedSamples (the bench,
 * the tests) use only this.
 */

/** The queue's folder in the state dir. */
export const QUEUE_DIR = 'queue'

const READ_BYTES = 64 * 1024

export interface QueuedSample {
  /** its place in the queue: ids only grow, oldest first */
  id: number
  recordedAt: number
  body: string
}

/** Where a record starts: the segment (named by its first id) and the byte in it. */
export interface Position {
  segment: number
  offset: number
}

export const segmentName = (firstId: number) => `${String(firstId).padStart(16, '0')}.log`

/** One record as it is on disk: `<recorded_at ms> <sample JSON>` and a newline. */
export const recordLine = (r: { recordedAt: number; body: string }) => `${Math.trunc(r.recordedAt)} ${r.body}\n`

/** A record read back (without its newline), given its id. */
export function parseRecord(record: string, id: number): QueuedSample {
  const space = record.indexOf(' ')
  return { id, recordedAt: Number(record.slice(0, space)), body: record.slice(space + 1) }
}

export interface Head extends Position {
  /** the id of the record at the position */
  id: number
}

/**
 * The queue as the files say, without changing them: the segments and their sizes, where the
 * oldest queued record is, the id the next one gets, and where the last segment's final complete
 * record ends (before a record a crash cut off).
 */
export function readDisk(dir: string): { segments: number[]; sizes: Map<number, number>; head: Head; nextId: number; tailComplete: number } {
  const segments: number[] = []
  for (const name of readdirSync(dir)) {
    const m = /^(\d{16})\.log$/.exec(name)
    if (m) segments.push(Number(m[1]))
  }
  segments.sort((a, b) => a - b)
  const sizes = new Map(segments.map((s) => [s, statSync(join(dir, segmentName(s))).size]))
  let head = readHead(dir) ?? { id: segments[0] ?? 0, segment: segments[0] ?? 0, offset: 0 }
  // a head before the first segment: its file was lost, or the queue was emptied by hand
  if (segments.length && segments[0]! > head.id) head = { id: segments[0]!, segment: segments[0]!, offset: 0 }
  const last = segments.at(-1)
  if (last === undefined) return { segments, sizes, head, nextId: head.id, tailComplete: 0 }
  let records = 0
  let tailComplete = 0
  forEachRecord(dir, last, sizes.get(last)!, 0, (_record, end) => {
    records++
    tailComplete = end
    return true
  })
  const nextId = last + records
  if (head.segment === last && head.offset > tailComplete) head = { id: nextId, segment: last, offset: tailComplete }
  return { segments, sizes, head, nextId, tailComplete }
}

function readHead(dir: string): Head | null {
  let text: string
  try {
    text = readFileSync(join(dir, 'head'), 'utf8')
  } catch {
    return null
  }
  const [id, segment, offset] = text.trim().split(' ').map(Number)
  if (![id, segment, offset].every((n) => Number.isSafeInteger(n) && n! >= 0)) return null
  return { id: id!, segment: segment!, offset: offset! }
}

/**
 * Calls `visit` for each complete record of a segment from `offset`, with the byte after it,
 * until it returns false. Reads in 64 KiB steps, so a walk that stops early reads little. A
 * final line without its newline (a torn append) is not visited.
 */
export function forEachRecord(dir: string, segment: number, size: number, offset: number, visit: (record: string, end: number) => boolean): void {
  if (offset >= size) return
  const fd = openSync(join(dir, segmentName(segment)), 'r')
  try {
    let buf = Buffer.allocUnsafe(READ_BYTES)
    /** file position of buf[0], and the bytes of buf that hold data */
    let at = offset
    let filled = 0
    while (at + filled < size) {
      if (filled === buf.length) {
        const bigger = Buffer.allocUnsafe(buf.length * 2) // one record longer than the buffer
        buf.copy(bigger, 0, 0, filled)
        buf = bigger
      }
      const got = readSync(fd, buf, filled, Math.min(buf.length - filled, size - at - filled), at + filled)
      if (got <= 0) return
      filled += got
      let start = 0
      for (let nl = buf.indexOf(10, start); nl !== -1 && nl < filled; nl = buf.indexOf(10, start)) {
        if (!visit(buf.toString('utf8', start, nl), at + nl + 1)) return
        start = nl + 1
      }
      // keep the unfinished record at the front for the next read
      buf.copy(buf, 0, start, filled)
      at += start
      filled -= start
    }
  } finally {
    closeSync(fd)
  }
}

/**
 * How many samples wait in a state dir's queue, read without changing it (another process may
 * hold it open). That process removes a segment once it is sent, which can fall between this
 * reader's listing and its opening of the file: it then looks again (`read` for tests).
 */
export function queuedSamples(stateDir: string, read: (dir: string) => Pick<ReturnType<typeof readDisk>, 'head' | 'nextId'> = readDisk): number {
  const dir = join(stateDir, QUEUE_DIR)
  for (let attempt = 1; ; attempt++) {
    if (!existsSync(dir)) return 0
    try {
      const { head, nextId } = read(dir)
      return Math.max(0, nextId - head.id)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= LOOKS) throw err
    }
  }
}

/** looks before a file that keeps vanishing is reported: each look is a few system calls */
const LOOKS = 20
