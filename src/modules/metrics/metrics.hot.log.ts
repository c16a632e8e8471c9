import type { SegmentFiles } from './metrics.segment-files'

/**
 * The append-only files the newest samples' records live in (metrics.hot.store.ts), one per
 * segment of writing, beside the database: `<database>-hot/<segment>.log`. The sealed blocks'
 * files (metrics.block.log.ts, one per hour of their starts) are made of the same frames.
 *
 * Why not a table: SQLite writes whole 4 KB pages per commit to its WAL (the table's last page,
 * the database header, the pointer map, the tree's parent page) and each of them once more at the
 * checkpoint, so a record of ~300 B cost 800 B to 2.4 KB of writes depending on how many shared a
 * commit (docs/storage.md). A file takes the record's own bytes: the kernel counts a page of the
 * file once while it stays dirty, and these records are never copied a second time.
 *
 * Each record is a frame: its length (u32), the CRC-32 of its payload (u32), the payload. A frame
 * cut short (a process killed in the middle of a write, a power cut) or damaged ends the file's
 * readable part: what follows is cut off before the next append. A group's frames are written by
 * one write() before the group's COMMIT and cut off again if the COMMIT fails, so a request is
 * answered only once its record is in the file (in the OS's page cache: a kill -9 loses nothing,
 * as with SQLite's WAL under synchronous=NORMAL; with FULL each group is synced).
 *
 * Segments are files rather than rows, so a sealed segment goes with one unlink, whatever its size.
 */

/** A frame's header: the payload's length and its CRC-32. */
export const HEADER = 8
/** No record is near this (a request's body is bounded far below it): a larger length is damage. */
const MAX_PAYLOAD = 64 * 1024 * 1024
const READ_CHUNK = 1 << 20

/** A record found when a segment is read from its start. */
export interface LogEntry {
  segment: number
  /** where its frame starts in the segment */
  at: number
  payload: Uint8Array
}

export function createHotLog(files: SegmentFiles, opts: { sync: boolean; readOnly?: boolean }) {
  /** per segment the length of its readable part: where the next frame goes */
  const ends = new Map<number, number>()
  /** frames of the group being written, per segment, not yet in the files */
  let pending = new Map<number, Uint8Array[]>()
  /** where each segment ended before the group was written (to cut it off again) */
  let written: Map<number, number> | null = null

  const endOf = (segment: number) => {
    let end = ends.get(segment)
    if (end === undefined) {
      end = files.size(segment)
      ends.set(segment, end)
    }
    return end
  }

  /** The group failed: its records, written or not, go. */
  const undo = () => {
    pending = new Map()
    if (!written) return
    for (const [segment, at] of written) {
      try {
        files.truncate(segment, at)
      } catch {
        // the file could not be cut: the records of a failed group would come back at start as
        // samples stored but never acknowledged, which a retry recognises as already there
      }
      ends.set(segment, at)
    }
    written = null
  }

  /** Writes the group's records, one write per segment; returns the segments written. On failure what was written is cut off again and the error is thrown. */
  const writeGroup = (): number[] => {
    const group = pending
    pending = new Map()
    written = new Map()
    try {
      for (const [segment, frames] of group) {
        if (!frames.length) continue
        const at = endOf(segment)
        written.set(segment, at)
        const bytes = frames.length === 1 ? frames[0]! : Buffer.concat(frames)
        files.write(segment, at, bytes)
        ends.set(segment, at + bytes.length)
      }
    } catch (err) {
      undo()
      throw err
    }
    return [...written.keys()]
  }

  return {
    /**
     * Every readable record, segment by segment, oldest first. A segment's damaged or cut tail is
     * left out, and is cut off before anything is appended to it.
     */
    *scan(): Generator<LogEntry> {
      for (const segment of files.list()) {
        const size = files.size(segment)
        let at = 0
        let buf = new Uint8Array(0)
        let bufAt = 0
        const bytes = (from: number, n: number): Uint8Array | null => {
          if (from + n > size) return null
          if (from < bufAt || from + n > bufAt + buf.length) {
            buf = new Uint8Array(Math.min(size - from, Math.max(n, READ_CHUNK)))
            bufAt = from
            if (files.read(segment, from, buf) < buf.length) return null
          }
          return buf.subarray(from - bufAt, from - bufAt + n)
        }
        for (;;) {
          const head = bytes(at, HEADER)
          if (!head) break
          const view = new DataView(head.buffer, head.byteOffset, HEADER)
          const length = view.getUint32(0, true)
          const crc = view.getUint32(4, true)
          if (length > MAX_PAYLOAD) break
          const payload = bytes(at + HEADER, length)
          if (!payload || Bun.hash.crc32(payload) !== crc) break
          yield { segment, at, payload: payload.slice() }
          at += HEADER + length
        }
        if (at < size && !opts.readOnly) files.truncate(segment, at)
        ends.set(segment, at)
      }
    },
    /** Adds a record to the group being written; returns where its frame will start. */
    append(segment: number, payload: Uint8Array): number {
      return this.appendFrame(segment, frameOf(payload))
    },
    /** The same for a payload already in its frame (sealFrame). */
    appendFrame(segment: number, frame: Uint8Array): number {
      let list = pending.get(segment)
      if (!list) pending.set(segment, (list = []))
      let at = endOf(segment)
      for (const f of list) at += f.length
      list.push(frame)
      return at
    },
    /** Takes back the group's last record (its request failed before the group was written). */
    unappend(segment: number) {
      pending.get(segment)?.pop()
    },
    /**
     * Writes the group's records, one write per segment. On failure what was written is cut off
     * again and the error is thrown.
     */
    persist() {
      const segments = writeGroup()
      try {
        if (opts.sync) for (const segment of segments) files.sync(segment)
      } catch (err) {
        undo()
        throw err
      }
    },
    /**
     * The same, each file's sync waited for on the runtime's threads instead of the event loop
     * (an fdatasync on an SD card can take a tenth of a second and more). Nothing else may write
     * to these segments until done() or undo().
     */
    async persistOffLoop(): Promise<void> {
      const segments = writeGroup()
      try {
        if (opts.sync) await Promise.all(segments.map((segment) => files.syncOffLoop(segment)))
      } catch (err) {
        undo()
        throw err
      }
    },
    /** whether the group written and not yet done or undone appends to this segment */
    isWriting: (segment: number): boolean => written?.has(segment) ?? false,
    /** The group's COMMIT went through: its records stay. */
    done() {
      pending = new Map()
      written = null
    },
    undo,
    /** Appends one record outside a group (a mark), written at once. */
    write(segment: number, payload: Uint8Array): void {
      const saved = pending
      pending = new Map()
      this.append(segment, payload)
      this.persist()
      written = null
      pending = saved
    },
    read(segment: number, at: number, length: number): Uint8Array {
      const out = new Uint8Array(length)
      if (files.read(segment, at + HEADER, out) < length) throw new Error(`hot record ${segment}:${at} is cut short`)
      return out
    },
    /** The payload of the frame at `at`, checked against its length and CRC-32; null when cut short, damaged or overwritten. */
    readChecked(segment: number, at: number, length: number): Uint8Array | null {
      const frame = new Uint8Array(HEADER + length)
      if (files.read(segment, at, frame) < frame.length) return null
      const view = new DataView(frame.buffer)
      const payload = frame.subarray(HEADER)
      if (view.getUint32(0, true) !== length || view.getUint32(4, true) !== Bun.hash.crc32(payload)) return null
      return payload
    },
    /** Cuts a segment to `length` (bytes past it were never pointed to). */
    cut(segment: number, length: number) {
      files.truncate(segment, length)
      ends.set(segment, length)
    },
    /** Writes over bytes in place, synced. */
    overwrite(segment: number, at: number, bytes: Uint8Array) {
      files.overwrite(segment, at, bytes)
    },
    /** the length of a segment's file */
    size: (segment: number) => endOf(segment),
    /** the segments there are files for, oldest first */
    segments: () => files.list(),
    /** puts a whole segment in place (see SegmentFiles.install) */
    install(segment: number, bytes: Uint8Array) {
      files.install(segment, bytes)
      ends.set(segment, bytes.length)
    },
    /** Removes a segment's file (every sample in it is sealed). */
    drop(segment: number) {
      files.remove(segment)
      ends.delete(segment)
    },
    /** the bytes the segments take */
    bytes(): number {
      let n = 0
      for (const segment of files.list()) n += ends.get(segment) ?? files.size(segment)
      return n
    },
    close: () => files.close(),
  }
}

export type HotLog = ReturnType<typeof createHotLog>

/**
 * Completes a frame whose payload was written in place after HEADER bytes (a record built
 * straight into its frame: no copy of the payload, no view asked of a buffer it did not make).
 */
export function sealFrame(frame: Uint8Array, view: DataView): Uint8Array {
  view.setUint32(0, frame.length - HEADER, true)
  view.setUint32(4, Bun.hash.crc32(frame.subarray(HEADER)), true)
  return frame
}

/** A payload in its frame, as a segment holds it. */
export function frameOf(payload: Uint8Array): Uint8Array {
  const frame = new Uint8Array(HEADER + payload.length)
  const view = new DataView(frame.buffer)
  view.setUint32(0, payload.length, true)
  view.setUint32(4, Bun.hash.crc32(payload), true)
  frame.set(payload, HEADER)
  return frame
}
