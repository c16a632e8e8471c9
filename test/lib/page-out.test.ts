import { describe, expect, test } from 'bun:test'
import { fileBackedMb, libcMadvise, MADV_PAGEOUT, mappingsOf, pageOut, pageOutExecutable, type Madvise } from '../../src/lib/page-out'

const EXE = '/usr/local/bin/vigil'
const MAPS = [
  `00200000-00213000 r--p 00000000 fd:00 1234 ${EXE}`,
  `00213000-01a40000 r-xp 00013000 fd:00 1234 ${EXE}`,
  `06a0d000-07af8000 rw-p 06804000 fd:00 1234 ${EXE}`,
  `06af8000-06b00000 rw-p 00000000 00:00 0 `,
  '7f0000000000-7f0000028000 r-xp 00000000 fd:00 99 /usr/lib/x86_64-linux-gnu/libc.so.6',
  `7f1000000000-7f1000001000 r--p 00000000 fd:00 55 ${EXE}.old`,
  '7f2000000000-7f2000002000 r--p 00000000 fd:00 56 /opt/my apps/vigil',
  '7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0                          [stack]',
].join('\n')

describe('handing the executable pages back', () => {
  test('takes every mapping of the executable and nothing else', () => {
    expect(mappingsOf(MAPS, EXE)).toEqual([
      { start: 0x200000n, end: 0x213000n },
      { start: 0x213000n, end: 0x1a40000n },
      { start: 0x6a0d000n, end: 0x7af8000n },
    ])
    // a path with a space, and one an upgrade replaced (the kernel appends " (deleted)" in both files)
    expect(mappingsOf(MAPS, '/opt/my apps/vigil')).toEqual([{ start: 0x7f2000000000n, end: 0x7f2000002000n }])
    const replaced = `00200000-00213000 r--p 00000000 fd:00 1234 ${EXE} (deleted)`
    expect(mappingsOf(replaced, `${EXE} (deleted)`)).toHaveLength(1)
    expect(mappingsOf(replaced, EXE)).toEqual([])
  })

  test('advises MADV_PAGEOUT over each mapping, 4 MB at a time with a turn of the event loop between, and counts the mappings the kernel took', async () => {
    const calls: (string | [bigint, bigint, number])[] = []
    // a kernel that refuses the third call, in the second mapping (as one without MADV_PAGEOUT refuses them all)
    const madvise: Madvise = (start, length, advice) => {
      calls.push([start, length, advice])
      return calls.filter((c) => c !== 'pause').length === 3 ? -1 : 0
    }
    expect(await pageOut(MAPS, EXE, madvise, async () => void calls.push('pause'))).toBe(2)
    const MB4 = 0x400000n
    expect(calls).toEqual([
      [0x200000n, 0x13000n, MADV_PAGEOUT],
      'pause',
      // 24.2 MB: six slices of 4 MB and what is left
      ...[0, 1, 2, 3, 4, 5].flatMap((i) => [[0x213000n + BigInt(i) * MB4, MB4, MADV_PAGEOUT] as [bigint, bigint, number], 'pause']),
      [0x213000n + 6n * MB4, 0x182d000n - 6n * MB4, MADV_PAGEOUT],
      'pause',
      // 16.9 MB: four slices and the rest
      ...[0, 1, 2, 3].flatMap((i) => [[0x6a0d000n + BigInt(i) * MB4, MB4, MADV_PAGEOUT] as [bigint, bigint, number], 'pause']),
      [0x6a0d000n + 4n * MB4, 0x10eb000n - 4n * MB4, MADV_PAGEOUT],
      'pause',
    ])
  })

  test("reads the process's file-backed memory from its status", () => {
    expect(fileBackedMb('VmRSS:\t   52564 kB\nRssAnon:\t   15064 kB\nRssFile:\t   37500 kB\nRssShmem:\t       0 kB\n')).toBe(36.6)
  })

  test('without madvise nothing is advised', async () => {
    expect(await pageOutExecutable(async () => null)).toBeNull()
  })

  test.if(process.platform === 'linux')("the C library's madvise pages out this very process's executable, which keeps running", async () => {
    const madvise = await libcMadvise()
    expect(madvise).not.toBeNull()
    // loaded once: the hub hands pages back after start-up, the self-publish and every burst
    expect(await libcMadvise()).toBe(madvise)
    const done = await pageOutExecutable(async () => madvise)
    // the kernel took every mapping of the test runner's executable (bun, here)
    expect(done!.ranges).toBeGreaterThan(0)
    expect(done!.fileBackedMb.before).toBeGreaterThan(0)
    // what runs next is read back as it is needed
    expect(JSON.parse(JSON.stringify({ still: 'running' }))).toEqual({ still: 'running' })
  })
})
