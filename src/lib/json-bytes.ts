/**
 * Writes JSON text straight into one reused byte buffer, for large answers built on a hot path
 * (a history page is ~110 KB). Building the same text with string concatenation leaves a rope
 * node per piece, a string per number and two flattened copies of the whole answer behind it;
 * that garbage is what set the tail latency (young-generation collections). Here a page costs
 * one copy: `take()` at the end.
 *
 * Numbers are spelled exactly as JSON.stringify spells them (shortest round-trip form): the
 * common cases (integers, up to 6 decimals) are written digit by digit, anything else through
 * String(). Not re-entrant: callers write one answer synchronously, then `take()` it.
 */
const encoder = new TextEncoder()
// the ASCII bytes JSON text is punctuated with
const QUOTE = 34 // "
export const COMMA = 44 // ,
export const CLOSE_BRACE = 125 // }
const MINUS = 45 // -
const DOT = 46 // .
const DIGIT0 = 48 // 0
const COLON = 58 // :
const LETTER_T = 84 // T
const LETTER_Z = 90 // Z
const NULL = encoder.encode('null')
/** 10^k for the decimal fast path */
const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6]
/** |v|·10^k stays below this, so v·10^k rounds to the right integer and only one decimal of k places can match */
const EXACT_LIMIT = 2 ** 50
const BILLION = 1e9
/** the most bytes a number takes: -1.2345678901234567e-308 */
const NUMBER_ROOM = 24

/** Decimal digits of a non-negative integer below 10^9. */
function digitCount(n: number): number {
  let d = 1
  for (let p = 10; p <= n; p *= 10) d++
  return d
}

export class JsonBytes {
  // a Buffer for its native UTF-8 write at an offset (no view per string, no result object)
  private buf: Buffer
  private pos = 0

  constructor(initialBytes = 64 * 1024) {
    this.buf = Buffer.alloc(initialBytes)
  }

  /** Starts a new answer (drops anything not taken). */
  reset(): this {
    this.pos = 0
    return this
  }

  /** The answer so far, as its own copy; the buffer is reused. */
  take(): Uint8Array {
    const out = new Uint8Array(this.pos)
    out.set(this.buf.subarray(0, this.pos))
    this.pos = 0
    return out
  }

  /**
   * The answer so far as a view of the buffer, no copy: valid only until the next write, for a
   * consumer that copies it at once (a Response does). The buffer is reused.
   */
  lend(): Uint8Array {
    const view = this.buf.subarray(0, this.pos)
    this.pos = 0
    return view
  }

  private room(n: number) {
    if (this.pos + n <= this.buf.length) return
    let size = this.buf.length * 2
    while (size < this.pos + n) size *= 2
    const next = Buffer.alloc(size)
    this.buf.copy(next, 0, 0, this.pos)
    this.buf = next
  }

  /** Raw bytes prepared once (keys, punctuation), e.g. from `JsonBytes.constant`. */
  bytes(b: Uint8Array): this {
    const n = b.length
    this.room(n)
    // a loop beats TypedArray#set's fixed cost for the short pieces (keys) this mostly gets
    if (n <= 32) for (let i = 0; i < n; i++) this.buf[this.pos + i] = b[i]!
    else this.buf.set(b, this.pos)
    this.pos += n
    return this
  }

  /**
   * Pieces of JSON text already encoded, `flat` cut at `ends`, with the numbers `values[at]`,
   * `values[at + 1]`, ... between them, each as `number` writes it (a template's text: see
   * metrics.templates.bytes.ts). Room is made once for the whole, the pieces copied in a loop.
   */
  pieces(flat: Uint8Array, ends: Int32Array, values: Float64Array, at: number): this {
    const last = ends.length - 1
    this.room(flat.length + NUMBER_ROOM * last)
    let from = 0
    for (let k = 0; ; k++) {
      const end = ends[k]!
      const buf = this.buf
      let pos = this.pos
      for (let i = from; i < end; i++) buf[pos++] = flat[i]!
      this.pos = pos
      from = end
      if (k === last) return this
      const v = values[at + k]!
      // room for it was made above
      if (Number.isSafeInteger(v)) this.writeInteger(v)
      else this.writeNumber(v)
    }
  }

  /** How many bytes are written so far: where a piece starts, for `asMembers`. */
  get written(): number {
    return this.pos
  }

  /**
   * The JSON object written since `start` made the members of the object being written, as
   * `members` does with a string (`{"a":1}` → `,"a":1`, `{}` → nothing): for an object written
   * straight into the buffer rather than made into a string first, or given as its UTF-8 bytes
   * (`object`, written first).
   */
  asMembers(start: number, object?: Uint8Array): this {
    if (object) this.bytes(object)
    if (this.pos - start <= 2) this.pos = start
    else {
      this.buf[start] = COMMA
      this.pos -= 1
    }
    return this
  }

  /** Text that is already JSON (a stored document, a key): copied as UTF-8. */
  raw(text: string): this {
    this.room(text.length * 3)
    this.pos += this.buf.write(text, this.pos)
    return this
  }

  /**
   * The members of a stored JSON object (`{"a":1}` → `,"a":1`), for splicing into an object
   * being written; nothing for `{}`, null or a non-string.
   */
  members(objectText: unknown): this {
    if (typeof objectText !== 'string') return this
    const start = this.pos
    return this.raw(objectText).asMembers(start)
  }

  /** A JSON number as JSON.stringify writes it; null for a non-number or non-finite value. */
  number(v: unknown): this {
    if (typeof v !== 'number') return this.bytes(NULL)
    this.room(NUMBER_ROOM)
    this.writeNumber(v)
    return this
  }

  /** A safe integer, digit by digit (−0 as 0, like JSON.stringify). */
  integer(v: number): this {
    this.room(NUMBER_ROOM)
    this.writeInteger(v)
    return this
  }

  /**
   * `number`'s text, room for NUMBER_ROOM bytes already made: a history page writes thousands of
   * numbers into room made once per text (`pieces`), without a check of room for each.
   */
  private writeNumber(v: number) {
    if (!Number.isFinite(v)) {
      this.copy(NULL)
      return
    }
    if (Number.isInteger(v)) {
      if (Math.abs(v) <= Number.MAX_SAFE_INTEGER) this.writeInteger(v)
      else this.copy(String(v))
      return
    }
    const a = Math.abs(v)
    for (let k = 1; k < POW10.length; k++) {
      const scale = POW10[k]!
      if (a * scale >= EXACT_LIMIT) break
      const m = Math.round(a * scale)
      if (m / scale !== a) continue
      const frac = m % scale
      if (v < 0) this.buf[this.pos++] = MINUS
      this.writeInteger((m - frac) / scale)
      this.buf[this.pos++] = DOT
      // the fraction with its leading zeros: k digits
      this.digits(frac, k)
      return
    }
    this.copy(String(v))
  }

  /** `integer`'s digits, room already made (at most 17 bytes: a sign and 16 digits). */
  private writeInteger(v: number) {
    if (v < 0) {
      this.buf[this.pos++] = MINUS
      v = -v
    }
    if (v < BILLION) {
      this.digits(v, digitCount(v))
    } else {
      // above 10^9, two int32-sized halves: the high part, then the low nine digits
      const high = Math.floor(v / BILLION)
      this.digits(high, digitCount(high))
      this.digits(v - high * BILLION, 9)
    }
  }

  /** ASCII text or bytes of at most NUMBER_ROOM bytes (a number's), room already made. */
  private copy(text: string | Uint8Array) {
    if (typeof text === 'string') for (let i = 0; i < text.length; i++) this.buf[this.pos++] = text.charCodeAt(i)
    else for (let i = 0; i < text.length; i++) this.buf[this.pos++] = text[i]!
  }

  /** `"YYYY-MM-DDTHH:mm:ss.sssZ"`, as Date#toISOString writes it, with the quotes. */
  isoDate(ms: number): this {
    const days = Math.floor(ms / 86_400_000)
    const inDay = ms - days * 86_400_000
    // civil date from days since 1970-01-01 (proleptic Gregorian), after H. Hinnant
    const z = days + 719_468
    const era = Math.floor(z / 146_097)
    const doe = z - era * 146_097
    const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365)
    const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
    const mp = Math.floor((5 * doy + 2) / 153)
    const day = doy - Math.floor((153 * mp + 2) / 5) + 1
    const month = mp < 10 ? mp + 3 : mp - 9
    const year = yoe + era * 400 + (month <= 2 ? 1 : 0)
    if (year < 0 || year > 9999 || !Number.isFinite(ms)) return this.byte(QUOTE).raw(new Date(ms).toISOString()).byte(QUOTE)
    this.room(26)
    this.buf[this.pos++] = QUOTE
    this.digits(year, 4)
    this.buf[this.pos++] = MINUS
    this.digits(month, 2)
    this.buf[this.pos++] = MINUS
    this.digits(day, 2)
    this.buf[this.pos++] = LETTER_T
    this.digits(Math.floor(inDay / 3_600_000), 2)
    this.buf[this.pos++] = COLON
    this.digits(Math.floor(inDay / 60_000) % 60, 2)
    this.buf[this.pos++] = COLON
    this.digits(Math.floor(inDay / 1000) % 60, 2)
    this.buf[this.pos++] = DOT
    this.digits(inDay % 1000, 3)
    this.buf[this.pos++] = LETTER_Z
    this.buf[this.pos++] = QUOTE
    return this
  }

  /** A non-negative integer below 10^9 as exactly `width` digits (leading zeros); room already made. */
  private digits(n: number, width: number) {
    // int32 arithmetic: n fits, and the JIT keeps it off floating-point division
    let x = n | 0
    for (let i = this.pos + width - 1; i >= this.pos; i--) {
      const q = (x / 10) | 0
      this.buf[i] = DIGIT0 + x - q * 10
      x = q
    }
    this.pos += width
  }

  byte(c: number): this {
    this.room(1)
    this.buf[this.pos++] = c
    return this
  }

  /** Bytes of a constant piece of JSON, encoded once by the caller. */
  static constant(text: string): Uint8Array {
    return encoder.encode(text)
  }
}
