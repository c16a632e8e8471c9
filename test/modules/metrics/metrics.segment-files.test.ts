import { describe, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileSegments } from '../../../src/modules/metrics/metrics.segment-files'

/** the descriptors this process has open on files under `dir`, by number */
const openUnder = (dir: string): number[] =>
  readdirSync('/proc/self/fd')
    .map(Number)
    .filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`).startsWith(dir)
      } catch {
        return false // closed since the listing
      }
    })

/** the names of the files under `dir` this process has open */
const openNames = (dir: string): string[] =>
  openUnder(dir)
    .map((fd) => readlinkSync(`/proc/self/fd/${fd}`).slice(dir.length + 1))
    .sort()

const bytesOf = (n: number) => new Uint8Array([n & 255, (n >> 8) & 255, 7])

describe('segment files (metrics.segment-files.ts)', () => {
  test('past maxOpen the least recently used descriptor is closed, and the file is opened again when next read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-segments-'))
    try {
      const files = fileSegments(dir, false, 8)
      for (let s = 0; s < 300; s++) files.write(s, 0, bytesOf(s))
      expect(openUnder(dir).length).toBe(8)
      // every file reads back, the ones closed long ago included, and the cap holds throughout
      for (let s = 0; s < 300; s++) {
        const out = new Uint8Array(3)
        expect(files.read(s, 0, out)).toBe(3)
        expect([...out]).toEqual([...bytesOf(s)])
        expect(files.size(s)).toBe(3)
      }
      expect(openUnder(dir).length).toBe(8)
      // the least recently used goes, not the first opened: 0 is read again last, so 1 goes
      for (let s = 0; s <= 7; s++) files.read(s, 0, new Uint8Array(1))
      files.read(0, 0, new Uint8Array(1))
      files.read(100, 0, new Uint8Array(1))
      expect(openNames(dir)).toEqual(['0.log', '100.log', '2.log', '3.log', '4.log', '5.log', '6.log', '7.log'])
      files.close()
      expect(openUnder(dir)).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a descriptor a sync off the event loop uses is closed only once the sync is over: its number cannot go to another file meanwhile', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-segments-'))
    try {
      const files = fileSegments(dir, false, 2)
      files.write(0, 0, bytesOf(0))
      const [syncing] = openUnder(dir)
      const sync = files.syncOffLoop(0)
      // evicted, and removed, while the sync runs
      for (let s = 1; s <= 5; s++) files.write(s, 0, bytesOf(s))
      files.remove(0)
      expect(readlinkSync(`/proc/self/fd/${syncing}`)).toContain('0.log')
      expect(openUnder(dir).length).toBe(3) // the two kept and the one still syncing
      await sync
      expect(openUnder(dir)).not.toContain(syncing!)
      expect(openUnder(dir).length).toBe(2)
      files.close()
      expect(openUnder(dir)).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
