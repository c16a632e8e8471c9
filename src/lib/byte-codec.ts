/**
 * Bytes written and read back in the stored formats of coded data (metric blocks, checks' packed
 * hours): LEB128 varints (signed ones zigzagged), length-prefixed UTF-8 strings, and byte planes.
 */

const utf8 = new TextEncoder()
const fromUtf8 = new TextDecoder()

/** A growable byte buffer. */
export class ByteWriter {
  buf = new Uint8Array(4096)
  len = 0
  private room(n: number) {
    if (this.len + n <= this.buf.length) return
    let size = this.buf.length * 2
    while (size < this.len + n) size *= 2
    const next = new Uint8Array(size)
    next.set(this.buf.subarray(0, this.len))
    this.buf = next
  }
  byte(b: number) {
    this.room(1)
    this.buf[this.len++] = b
  }
  varint(n: number) {
    // ids, counts and times are non-negative safe integers: divide rather than shift (no 32-bit wrap)
    this.room(8)
    while (n >= 0x80) {
      this.buf[this.len++] = (n % 0x80) | 0x80
      n = Math.floor(n / 0x80)
    }
    this.buf[this.len++] = n
  }
  bytes(b: Uint8Array) {
    this.room(b.length)
    this.buf.set(b, this.len)
    this.len += b.length
  }
  string(s: string) {
    const b = utf8.encode(s)
    this.varint(b.length)
    this.bytes(b)
  }
  /** a copy of what was written */
  done(): Uint8Array<ArrayBuffer> {
    return this.buf.slice(0, this.len)
  }
}

/** Reads what ByteWriter wrote; throws on bytes that end early (`what` names the format in the error). */
export class ByteReader {
  pos = 0
  constructor(
    readonly buf: Uint8Array,
    private readonly what: string,
  ) {}
  byte() {
    if (this.pos >= this.buf.length) throw new Error(`${this.what} truncated`)
    return this.buf[this.pos++]!
  }
  varint() {
    let n = 0
    let mul = 1
    for (;;) {
      const b = this.byte()
      n += (b & 0x7f) * mul
      if (b < 0x80) return n
      mul *= 0x80
    }
  }
  /** a safe integer of either sign, written zigzagged (0, -1, 1, -2 … as 0, 1, 2, 3 …) */
  signed() {
    const z = this.varint()
    return z % 2 === 0 ? z / 2 : -(z + 1) / 2
  }
  bytes(n: number) {
    if (this.pos + n > this.buf.length) throw new Error(`${this.what} truncated`)
    const b = this.buf.subarray(this.pos, this.pos + n)
    this.pos += n
    return b
  }
  string() {
    return fromUtf8.decode(this.bytes(this.varint()))
  }
}

/** Byte planes of 8-byte numbers: every number's byte 0, then every byte 1, ... (zero bytes line up for zstd). */
export function shuffle(bytes: Uint8Array): Uint8Array {
  const n = bytes.length / 8
  const out = new Uint8Array(bytes.length)
  for (let i = 0; i < n; i++) for (let b = 0; b < 8; b++) out[b * n + i] = bytes[i * 8 + b]!
  return out
}
