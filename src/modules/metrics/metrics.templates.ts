/**
 * A JSON text as a template and its numbers (metrics.block.ts codes them apart): each number is
 * cut out where printing it again gives the same characters, leaving a SLOT in its place.
 */

/** Stands for a number cut out of a template (never in a JSON text: control characters are escaped there). */
export const SLOT = '\u0000'

const isNumberStart = (c: number) => c === 45 || (c >= 48 && c <= 57) // - 0-9
const isNumberPart = (c: number) => (c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46 || c === 101 || c === 69 // 0-9 - + . e E

/** Splits a JSON text into its template and the numbers cut out of it. */
export function splitNumbers(text: string): { template: string; numbers: number[] } {
  const numbers: number[] = []
  let template = ''
  let from = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92)
        i++ // a backslash escapes the next character
      else if (c === 34) inString = false
      continue
    }
    if (c === 34) {
      inString = true
      continue
    }
    if (!isNumberStart(c)) continue
    let j = i + 1
    while (j < text.length && isNumberPart(text.charCodeAt(j))) j++
    const token = text.slice(i, j)
    const value = Number(token)
    // only a number that prints back as the same characters is cut out (1.0, 1e2 and -0 stay in the template)
    if (String(value) === token) {
      template += text.slice(from, i) + SLOT
      numbers.push(value)
      from = j
    }
    i = j - 1
  }
  return { template: template + text.slice(from), numbers }
}

/** Writes a text back from its template: the numbers of its slots are `values[at]` on. */
export type TemplateText = (values: Float64Array, at: number) => string

/** Text is built here, then taken as a string (grown to the longest text built). */
let scratch = Buffer.allocUnsafe(16 * 1024)
/** characters that do not fit one Latin-1 byte */
const WIDE = /[\u0100-\uffff]/
const BILLION = 1e9

/**
 * The writer of a template's texts. A text joined from pieces of strings is a rope that is
 * flattened again when the page is written out (that flattening cost more than the joining):
 * where every character of the template fits one Latin-1 byte (JSON as collectors send it),
 * the text is written as bytes, integers digit by digit, and taken as one flat string. Numbers
 * come out as String() writes them.
 */
export function templateText(template: string): TemplateText {
  const parts = template.split(SLOT)
  if (WIDE.test(template)) {
    return (values, at) => {
      let out = parts[0]!
      for (let k = 1; k < parts.length; k++) out += String(values[at + k - 1]) + parts[k]!
      return out
    }
  }
  // the parts one after the other, and where each ends
  const flat = new Uint8Array(Buffer.from(parts.join(''), 'latin1'))
  const ends = new Int32Array(parts.length)
  for (let k = 0, e = 0; k < parts.length; k++) ends[k] = e += parts[k]!.length
  const last = parts.length - 1
  // a number takes at most 24 characters as String() writes it (-1.2345678901234567e-308)
  const most = flat.length + 24 * last
  return (values, at) => {
    if (scratch.length < most) scratch = Buffer.allocUnsafe(Math.max(most, scratch.length * 2))
    const buf = scratch
    let pos = 0
    let from = 0
    for (let k = 0; ; k++) {
      const end = ends[k]!
      for (let i = from; i < end; i++) buf[pos++] = flat[i]!
      from = end
      if (k === last) break
      pos = writeNumber(buf, pos, values[at + k]!)
    }
    return buf.toString('latin1', 0, pos)
  }
}

/** A number as String() writes it, at `pos`; returns the position after it. */
function writeNumber(buf: Buffer, pos: number, v: number): number {
  // a safe integer is written as its plain digits (String() uses an exponent only from 1e21 on); −0 as 0
  if (!Number.isSafeInteger(v)) return pos + buf.write(String(v), pos, 'latin1')
  if (v < 0) {
    buf[pos++] = 45 // -
    v = -v
  }
  if (v < 2 ** 32) return digits(buf, pos, v >>> 0)
  const high = Math.floor(v / BILLION)
  pos = digits(buf, pos, high)
  // the low nine digits, leading zeros included
  let low = (v - high * BILLION) >>> 0
  for (let i = pos + 8; i >= pos; i--) {
    const q = (low / 10) >>> 0
    buf[i] = 48 + low - q * 10
    low = q
  }
  return pos + 9
}

/** The digits of an unsigned 32-bit integer at `pos`; returns the position after them. */
function digits(buf: Buffer, pos: number, n: number): number {
  const end = pos + (n < 10 ? 1 : n < 100 ? 2 : n < 1e3 ? 3 : n < 1e4 ? 4 : n < 1e5 ? 5 : n < 1e6 ? 6 : n < 1e7 ? 7 : n < 1e8 ? 8 : n < 1e9 ? 9 : 10)
  // unsigned 32-bit arithmetic keeps the JIT off floating-point division
  for (let i = end - 1; i >= pos; i--) {
    const q = (n / 10) >>> 0
    buf[i] = 48 + n - q * 10
    n = q
  }
  return end
}

/** How many numbers a template's slots hold. */
export function countSlots(template: string): number {
  let n = 0
  for (let i = template.indexOf(SLOT); i !== -1; i = template.indexOf(SLOT, i + 1)) n++
  return n
}
