import { describe, expect, test } from 'bun:test'
import { constants, zstdCompressSync, zstdDecompressSync } from 'node:zlib'
import { rng } from '../../../scripts/bench/storage-samples'
import { usesNativeHandle, zstdCompress, zstdDecompress } from '../../../src/modules/metrics/metrics.hot.zstd'

/** Text like a sample's, with random changes: mostly what the dictionary holds, some of it new. */
function texts(seed: number, n: number, size: number): Uint8Array[] {
  const r = rng(seed)
  const base = Array.from({ length: size }, () => '{"cpu":1.5,"name":"eth0","ünï":[3,4]}'[Math.floor(r() * 38)]).join('')
  const enc = new TextEncoder()
  return Array.from({ length: n }, () => {
    const chars = base.split('')
    for (let k = 0; k < size / 20; k++) chars[Math.floor(r() * size)] = String.fromCharCode(32 + Math.floor(r() * 300))
    return enc.encode(chars.join(''))
  })
}

/** Bytes no compressor can shrink: the output is larger than the input, and than one output buffer. */
function noise(seed: number, size: number): Uint8Array {
  const r = rng(seed)
  return Uint8Array.from({ length: size }, () => Math.floor(r() * 256))
}

const zlibBytes = (input: Uint8Array, level: number, dictionary?: Uint8Array) =>
  zstdCompressSync(input, { params: { [constants.ZSTD_c_compressionLevel]: level }, ...(dictionary ? { dictionary } : {}) })

describe('zstd on the native handle', () => {
  test('is in use on this Bun (not the fallback through node:zlib streams)', () => {
    expect(usesNativeHandle()).toBe(true)
  })

  test("writes node:zlib's bytes exactly, with and without a dictionary, and reads them back", () => {
    for (const size of [1, 300, 3_700, 40_000]) {
      const list = texts(size, 6, size)
      for (let i = 0; i < list.length; i++) {
        const dictionary = i ? list[i - 1] : undefined
        for (const level of [1, 9]) {
          const ours = zstdCompress(list[i]!, level, dictionary)
          expect(Buffer.from(ours).equals(zlibBytes(list[i]!, level, dictionary))).toBe(true)
          expect(Buffer.from(zstdDecompress(ours, dictionary)).equals(Buffer.from(list[i]!))).toBe(true)
          expect(Buffer.from(zstdDecompressSync(ours, dictionary ? { dictionary } : undefined)).equals(Buffer.from(list[i]!))).toBe(true)
        }
      }
    }
  })

  test('an output larger than its first buffer comes out whole', () => {
    const input = noise(7, 100_000)
    const packed = zstdCompress(input, 1)
    expect(packed.length).toBeGreaterThan(input.length)
    expect(Buffer.from(packed).equals(zlibBytes(input, 1))).toBe(true)
    expect(Buffer.from(zstdDecompress(packed)).equals(Buffer.from(input))).toBe(true)
  })

  test('each result is its own copy: the next call does not change it', () => {
    const [a, b] = texts(3, 2, 2_000)
    const first = zstdCompress(a!, 1)
    const copy = Buffer.from(first)
    zstdCompress(b!, 1, a)
    zstdDecompress(first)
    expect(Buffer.from(first).equals(copy)).toBe(true)
  })

  test('damaged input throws, as node:zlib does', () => {
    const [a, b] = texts(5, 2, 3_000)
    const packed = Buffer.from(zstdCompress(b!, 1, a))
    packed[10]! ^= 0xff
    expect(() => zstdDecompressSync(packed, { dictionary: a })).toThrow()
    expect(() => zstdDecompress(packed, a)).toThrow()
    // and the handle after a failure is not reused: the next call works
    expect(Buffer.from(zstdDecompress(zstdCompress(b!, 1, a), a)).equals(Buffer.from(b!))).toBe(true)
  })

  test('inputs without a dictionary, one after another and between ones with a dictionary, each come out whole', () => {
    const list = texts(11, 40, 2_500)
    const packed = list.map((t, i) => (i % 3 === 2 ? zstdCompress(t, 1, list[i - 1]) : zstdCompress(t, i % 2 ? 9 : 1)))
    for (let round = 0; round < 2; round++)
      for (let i = 0; i < list.length; i++) {
        const back = i % 3 === 2 ? zstdDecompress(packed[i]!, list[i - 1]) : zstdDecompress(packed[i]!)
        expect(Buffer.from(back).equals(Buffer.from(list[i]!))).toBe(true)
      }
  })

  test('an input cut short, or damaged, without a dictionary leaves nothing behind for the next one', () => {
    const [a, b] = texts(13, 2, 6_000)
    const whole = zstdCompress(a!, 1)
    // cut short: its frame is never finished; the next input is a frame of its own
    zstdDecompress(whole.subarray(0, Math.floor(whole.length / 2)))
    expect(Buffer.from(zstdDecompress(zstdCompress(b!, 1))).equals(Buffer.from(b!))).toBe(true)
    const damaged = Buffer.from(whole)
    damaged[whole.length >> 1]! ^= 0xff
    damaged[(whole.length >> 1) + 1]! ^= 0xff
    try {
      zstdDecompress(damaged)
    } catch {
      // a damaged frame may throw or come out wrong: what matters is the next one
    }
    expect(Buffer.from(zstdDecompress(zstdCompress(b!, 1))).equals(Buffer.from(b!))).toBe(true)
    expect(Buffer.from(zstdDecompress(whole)).equals(Buffer.from(a!))).toBe(true)
  })
})
