import { promisify } from 'node:util'
import {
  closeSync,
  fdatasync,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readSync,
  readdirSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs'
import { join } from 'node:path'

/** Where the segments' bytes live: files beside the database, or memory for a database in memory. */
export interface SegmentFiles {
  list(): number[]
  size(segment: number): number
  write(segment: number, at: number, bytes: Uint8Array): void
  read(segment: number, at: number, into: Uint8Array): number
  truncate(segment: number, length: number): void
  sync(segment: number): void
  /** the same, on the runtime's threads: the event loop goes on meanwhile */
  syncOffLoop(segment: number): Promise<void>
  remove(segment: number): void
  /** puts a whole segment in place at once (written beside, synced, renamed): it exists whole or not at all */
  install(segment: number, bytes: Uint8Array): void
  /** writes over bytes in place and syncs them (the appending descriptor cannot: O_APPEND writes at the end) */
  overwrite(segment: number, at: number, bytes: Uint8Array): void
  close(): void
}

const fdatasyncOffLoop = promisify(fdatasync)

/**
 * Descriptors a directory of segments keeps open at most. The block files are one per hour of
 * data: a year of raw retention is 8,760 files, and keeping each open (as this once did) met the
 * process's limit where its hard limit is low (1,024 is common outside systemd). Past this many,
 * the least recently used is closed and opened again when next needed (about 7 µs here).
 */
export const MAX_OPEN_SEGMENTS = 128

/**
 * `readOnly`: another process's files, read while it may append (nothing is created or cut off).
 * `maxOpen`: descriptors kept open at most (see MAX_OPEN_SEGMENTS).
 */
export function fileSegments(dir: string, readOnly = false, maxOpen = MAX_OPEN_SEGMENTS): SegmentFiles {
  /** open descriptors by segment, least recently used first */
  const fds = new Map<number, number>()
  /** descriptors a sync on the runtime's threads is using, and how many such syncs */
  const inFlight = new Map<number, number>()
  /** descriptors closed while a sync used them: closed once it is over, so their number is not reused meanwhile */
  const closeAfter = new Set<number>()
  let made = false
  const path = (segment: number) => join(dir, `${segment}.log`)
  const closeFd = (f: number) => {
    if (inFlight.has(f)) closeAfter.add(f)
    else closeSync(f)
  }
  const closeLeastUsed = () => {
    for (const [segment, f] of fds) {
      if (fds.size <= maxOpen) return
      fds.delete(segment)
      closeFd(f)
    }
  }
  const fd = (segment: number) => {
    let f = fds.get(segment)
    if (f !== undefined) {
      // the most recently used goes last
      fds.delete(segment)
      fds.set(segment, f)
      return f
    }
    if (!made) mkdirSync(dir, { recursive: true, mode: 0o700 })
    made = true
    // the samples are the owner's alone, as the database is (db/connection.ts)
    f = openSync(path(segment), readOnly ? 'r' : 'a+', 0o600)
    fds.set(segment, f)
    closeLeastUsed()
    return f
  }
  const syncOffLoop = async (segment: number) => {
    const f = fd(segment)
    inFlight.set(f, (inFlight.get(f) ?? 0) + 1)
    try {
      await fdatasyncOffLoop(f)
    } finally {
      const left = inFlight.get(f)! - 1
      if (left) inFlight.set(f, left)
      else {
        inFlight.delete(f)
        if (closeAfter.delete(f)) closeSync(f)
      }
    }
  }
  return {
    list() {
      let names: string[]
      try {
        names = readdirSync(dir)
      } catch {
        return []
      }
      made = true
      return names
        .map((n) => /^(\d+)\.log$/.exec(n))
        .filter((m) => m !== null)
        .map((m) => Number(m[1]))
        .sort((a, b) => a - b)
    },
    size: (segment) => fstatSync(fd(segment)).size,
    write(segment, at, bytes) {
      let done = 0
      while (done < bytes.length) done += writeSync(fd(segment), bytes, done, bytes.length - done, at + done)
    },
    read: (segment, at, into) => readSync(fd(segment), into, 0, into.length, at),
    truncate: (segment, length) => ftruncateSync(fd(segment), length),
    sync: (segment) => fdatasyncSync(fd(segment)),
    syncOffLoop,
    remove(segment) {
      const f = fds.get(segment)
      if (f !== undefined) closeFd(f)
      fds.delete(segment)
      rmSync(path(segment), { force: true })
    },
    install(segment, bytes) {
      mkdirSync(dir, { recursive: true, mode: 0o700 })
      made = true
      const tmp = `${path(segment)}.tmp`
      const f = openSync(tmp, 'w', 0o600)
      try {
        let done = 0
        while (done < bytes.length) done += writeSync(f, bytes, done, bytes.length - done, done)
        fdatasyncSync(f)
      } finally {
        closeSync(f)
      }
      renameSync(tmp, path(segment))
    },
    overwrite(segment, at, bytes) {
      const f = openSync(path(segment), 'r+')
      try {
        let done = 0
        while (done < bytes.length) done += writeSync(f, bytes, done, bytes.length - done, at + done)
        fdatasyncSync(f)
      } finally {
        closeSync(f)
      }
    },
    close() {
      for (const f of fds.values()) closeFd(f)
      fds.clear()
    },
  }
}

export function memorySegments(): SegmentFiles {
  const files = new Map<number, Uint8Array>()
  const get = (segment: number) => files.get(segment) ?? new Uint8Array(0)
  return {
    list: () => [...files.keys()].sort((a, b) => a - b),
    size: (segment) => get(segment).length,
    write(segment, at, bytes) {
      const old = get(segment)
      const next = new Uint8Array(Math.max(old.length, at + bytes.length))
      next.set(old)
      next.set(bytes, at)
      files.set(segment, next)
    },
    read(segment, at, into) {
      const part = get(segment).subarray(at, at + into.length)
      into.set(part)
      return part.length
    },
    truncate: (segment, length) => void files.set(segment, get(segment).slice(0, length)),
    sync: () => {},
    syncOffLoop: async () => {},
    remove: (segment) => void files.delete(segment),
    install: (segment, bytes) => void files.set(segment, bytes.slice()),
    overwrite(segment, at, bytes) {
      const file = files.get(segment)
      if (file) file.set(bytes.subarray(0, Math.max(0, file.length - at)), at)
    },
    close: () => {},
  }
}
