import { Buffer } from 'node:buffer'
import { constants, ZstdCompress, zstdCompressSync, zstdDecompressSync } from 'node:zlib'

/**
 * zstd with a dictionary, one call per record, on node:zlib's native handle. `zstdCompressSync`
 * makes a whole stream for every call (the ZstdCompress object, its Transform, Readable and
 * Writable states, a 16 KB output buffer) around the same native handle: on an ingest request
 * that was as much CPU as the compression itself (docs/storage.md, "Ingest"). Bun's
 * `zstdCompressSync` takes no dictionary, and a record's dictionary is its device's previous
 * record, so one handle cannot be kept from one record to the next. The bytes are node:zlib's
 * exactly: the same handle, parameters and flush (test/modules/metrics/metrics.hot.zstd.test.ts).
 * Should a Bun release no longer expose the handle as used here, node:zlib's functions are used
 * as before.
 */

/** What node:zlib's ZstdCompress and ZstdDecompress keep as `_handle` (Bun 1.4). */
interface NativeZstd {
  onerror: (message: string, errno: number, code: string) => void
  /** starts a new frame, the parameters and dictionary kept */
  reset(): void
  init(params: Uint32Array, pledgedSrcSize: number | undefined, writeState: Uint32Array, processCallback: () => void, dictionary?: Uint8Array): boolean
  writeSync(flush: number, input: Uint8Array, inOff: number, inLen: number, out: Uint8Array, outOff: number, outLen: number): void
  close(): void
}
type NativeZstdClass = new (mode: number) => NativeZstd

/** found on first use (a hub that stores no sample never makes the stream it is found on) */
let native: NativeZstdClass | null | undefined
function nativeClass(): NativeZstdClass | null {
  if (native !== undefined) return native
  native = null
  try {
    const stream = new ZstdCompress()
    const handle = (stream as unknown as { _handle?: { constructor?: unknown } })._handle
    const ctor = handle?.constructor
    stream.close()
    if (
      typeof ctor === 'function' &&
      ['init', 'writeSync', 'reset', 'close'].every((m) => typeof (ctor.prototype as Record<string, unknown>)[m] === 'function')
    )
      native = ctor as NativeZstdClass
  } catch {
    native = null
  }
  return native
}

const LEVEL = constants.ZSTD_c_compressionLevel
/** one slot per compression parameter, all "not set" (the native init skips 2^32 - 1) but the level */
const compressParams = (level: number) => {
  const p = new Uint32Array(LEVEL + 1).fill(0xffffffff)
  p[LEVEL] = level
  return p
}
const NO_PARAMS = new Uint32Array(1).fill(0xffffffff)
/** what a call leaves: output space left, input left */
const writeState = new Uint32Array(2)
const noop = () => {}
/** one output buffer for every call, copied out of (a record is a few hundred bytes); made on first use */
let scratch: Buffer | null = null
const KEPT_SCRATCH = 65536

/** what the handle in use reports of a failure (a damaged input, a wrong dictionary) by its callback, during a call */
const failed: { error: Error | null } = { error: null }
const onerror = (message: string, errno: number, code: string) => {
  failed.error = Object.assign(new Error(message), { errno, code })
}

/**
 * One decompression handle kept for inputs without a dictionary (the 1-minute tier's spans,
 * sealed blocks, records standing alone), reset before each: making a handle and its context
 * for every input cost more than decompressing a span of a few KB (4.8 against 2.0 µs). A
 * handle with a dictionary is made for its one input: the dictionary is the record before.
 * Dropped after a failure, so a damaged input leaves nothing behind for the next.
 */
let keptInflate: NativeZstd | null = null

function handleFor(mode: number, params: Uint32Array, dictionary: Uint8Array | undefined, Native: NativeZstdClass): { h: NativeZstd; kept: boolean } {
  if (mode === constants.ZSTD_DECOMPRESS && !dictionary && keptInflate) {
    keptInflate.reset()
    return { h: keptInflate, kept: true }
  }
  const h = new Native(mode)
  h.onerror = onerror
  h.init(params, undefined, writeState, noop, dictionary)
  if (failed.error) {
    h.close()
    throw failed.error
  }
  const kept = mode === constants.ZSTD_DECOMPRESS && !dictionary
  if (kept) keptInflate = h
  return { h, kept }
}

/** Runs one whole input through a handle with its dictionary, flushing at its end, into an owned copy of the output. */
function run(mode: number, params: Uint32Array, input: Uint8Array, dictionary: Uint8Array | undefined, Native: NativeZstdClass): Buffer {
  failed.error = null
  const { h, kept } = handleFor(mode, params, dictionary, Native)
  let out = (scratch ??= Buffer.allocUnsafe(16384))
  let ok = false
  try {
    let used = 0
    let at = 0
    let left = input.length
    for (;;) {
      h.writeSync(constants.ZSTD_e_end, input, at, left, out, used, out.length - used)
      if (failed.error) throw failed.error
      const room = writeState[0]!
      at += left - writeState[1]!
      left = writeState[1]!
      used = out.length - room
      // the output had room left: zstd took what it could and flushed all it had
      if (room !== 0) break
      const larger = Buffer.allocUnsafe(out.length * 2)
      larger.set(out)
      scratch = out = larger
    }
    ok = true
    return Buffer.from(out.subarray(0, used))
  } finally {
    if (!kept || !ok) {
      h.close()
      if (kept) keptInflate = null
    }
    // a rare large output (a body near the 1 MiB cap) does not stay held for the small ones after it
    if (out.length > KEPT_SCRATCH) scratch = null
  }
}

const zstdParams = new Map<number, { native: Uint32Array; zlib: { params: Record<number, number>; chunkSize: number } }>()

/** zstd at `level`, against `dictionary` when given: node:zlib's zstdCompressSync's bytes. */
export function zstdCompress(input: Uint8Array, level: number, dictionary?: Uint8Array): Buffer {
  let p = zstdParams.get(level)
  if (!p) zstdParams.set(level, (p = { native: compressParams(level), zlib: { params: { [LEVEL]: level }, chunkSize: 2048 } }))
  const Native = nativeClass()
  if (Native) return run(constants.ZSTD_COMPRESS, p.native, input, dictionary, Native)
  return zstdCompressSync(input, dictionary ? { ...p.zlib, dictionary } : p.zlib)
}

/** The input of zstdCompress back, with the same dictionary. */
export function zstdDecompress(packed: Uint8Array, dictionary?: Uint8Array): Buffer {
  const Native = nativeClass()
  if (Native) return run(constants.ZSTD_DECOMPRESS, NO_PARAMS, packed, dictionary, Native)
  return zstdDecompressSync(packed, dictionary ? { dictionary } : undefined)
}

/** Whether the native handle is in use (tests: the fast path must not silently fall back). */
export const usesNativeHandle = () => nativeClass() !== null
