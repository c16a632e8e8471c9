/**
 * The packed form of one check's attempts at one place in one hour (a row of check_packs).
 * Lossless: decoding gives back every attempt as its row held it. Each column is laid out the
 * way it repeats, so that an hour of a healthy check costs about 3 bytes an attempt:
 *
 * - times: the first as ms after the hour's start, each next as its distance from the previous
 *   less the hour's usual step (the median distance), zigzag varints: a check on its schedule
 *   writes one byte an attempt, however its clock runs;
 * - outcome (ok, status code): a small dictionary of the hour's distinct pairs, then runs of
 *   its entries (an hour of 200s is three bytes);
 * - errors: each distinct text once, then runs of entries (none is entry 0);
 * - response ms: a varint each (ms + 1; 0 when none was measured).
 *
 * The body is deflated when that makes it smaller (long error texts, steady response times).
 */

export interface PackedAttempt {
  ts: number
  ok: number
  response_ms: number | null
  status_code: number | null
  error: string | null
}

const HOUR_MS = 3_600_000
const PLAIN = 1
const DEFLATED = 2

/** every number packed is a whole number ≥ 0: anything else would come back changed */
function whole(v: number): number {
  if (!Number.isSafeInteger(v) || v < 0) throw new Error(`cannot pack ${v}: a whole number of at least 0 was expected`)
  return v
}

class Writer {
  private buf = new Uint8Array(256)
  length = 0
  private room(n: number) {
    if (this.length + n <= this.buf.length) return
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.length + n))
    next.set(this.buf.subarray(0, this.length))
    this.buf = next
  }
  /** an unsigned integer up to 2^53, 7 bits a byte (arithmetic, not bit operators, past 2^31) */
  uint(v: number) {
    whole(v)
    this.room(8)
    while (v >= 0x80) {
      this.buf[this.length++] = (v % 0x80) | 0x80
      v = Math.floor(v / 0x80)
    }
    this.buf[this.length++] = v
  }
  int(v: number) {
    this.uint(v >= 0 ? v * 2 : -v * 2 - 1)
  }
  bytes(b: Uint8Array) {
    this.uint(b.length)
    this.room(b.length)
    this.buf.set(b, this.length)
    this.length += b.length
  }
  done = () => this.buf.subarray(0, this.length)
}

class Reader {
  private at = 0
  constructor(private readonly buf: Uint8Array) {}
  uint(): number {
    let v = 0
    let scale = 1
    for (;;) {
      if (this.at >= this.buf.length) throw new Error('packed attempts end early')
      const b = this.buf[this.at++]!
      v += (b & 0x7f) * scale
      if (b < 0x80) return v
      scale *= 0x80
    }
  }
  int(): number {
    const z = this.uint()
    return z % 2 === 0 ? z / 2 : -(z + 1) / 2
  }
  bytes(): Uint8Array {
    const n = this.uint()
    if (this.at + n > this.buf.length) throw new Error('packed attempts end early')
    const out = this.buf.subarray(this.at, this.at + n)
    this.at += n
    return out
  }
}

/** entries as a dictionary of distinct keys and runs of (entry, length) */
function writeRuns(w: Writer, entries: number[]) {
  let i = 0
  while (i < entries.length) {
    let j = i + 1
    while (j < entries.length && entries[j] === entries[i]) j++
    w.uint(entries[i]!)
    w.uint(j - i)
    i = j
  }
}

function readRuns(r: Reader, n: number): number[] {
  const out: number[] = []
  while (out.length < n) {
    const entry = r.uint()
    const run = r.uint()
    if (run < 1 || out.length + run > n) throw new Error('packed attempts are corrupt')
    for (let k = 0; k < run; k++) out.push(entry)
  }
  return out
}

const text = new TextEncoder()
const untext = new TextDecoder()

/** Packs the attempts of one hour (hour = floor(ts / 1 h) of each); they are sorted by time here. */
export function encodePack(hour: number, attempts: PackedAttempt[]): Uint8Array {
  const rows = attempts.toSorted((a, b) => a.ts - b.ts)
  const base = hour * HOUR_MS
  const w = new Writer()
  w.uint(rows.length)
  const gaps = rows.slice(1).map((r, i) => r.ts - rows[i]!.ts)
  const step = gaps.length ? gaps.toSorted((a, b) => a - b)[gaps.length >> 1]! : 0
  w.uint(step)
  if (rows.length) w.uint(rows[0]!.ts - base)
  for (const g of gaps) w.int(g - step)

  const outcomes = new Map<string, number>()
  const outcomeOf = rows.map((r) => {
    const key = `${r.ok}:${r.status_code ?? ''}`
    let e = outcomes.get(key)
    if (e === undefined) outcomes.set(key, (e = outcomes.size))
    return e
  })
  w.uint(outcomes.size)
  for (const key of outcomes.keys()) {
    const [ok, status] = key.split(':')
    w.uint(Number(ok))
    w.uint(status === '' ? 0 : whole(Number(status)) + 1)
  }
  writeRuns(w, outcomeOf)

  const errors = new Map<string, number>()
  const errorOf = rows.map((r) => {
    if (r.error === null) return 0
    let e = errors.get(r.error)
    if (e === undefined) errors.set(r.error, (e = errors.size + 1))
    return e
  })
  w.uint(errors.size)
  for (const e of errors.keys()) w.bytes(text.encode(e))
  writeRuns(w, errorOf)

  for (const r of rows) w.uint(r.response_ms === null ? 0 : whole(r.response_ms) + 1)

  const body = w.done()
  const deflated = Bun.deflateSync(body)
  const out = new Uint8Array(1 + Math.min(body.length, deflated.length))
  if (deflated.length < body.length) {
    out[0] = DEFLATED
    out.set(deflated, 1)
  } else {
    out[0] = PLAIN
    out.set(body, 1)
  }
  return out
}

/** The attempts of a packed hour, oldest first. */
export function decodePack(hour: number, data: Uint8Array): PackedAttempt[] {
  const kind = data[0]
  if (kind !== PLAIN && kind !== DEFLATED) throw new Error(`packed attempts of an unknown form (${kind})`)
  const r = new Reader(kind === DEFLATED ? Bun.inflateSync(data.slice(1) as Uint8Array<ArrayBuffer>) : data.subarray(1))
  const n = r.uint()
  const step = r.uint()
  const ts: number[] = []
  if (n) ts.push(hour * HOUR_MS + r.uint())
  for (let i = 1; i < n; i++) ts.push(ts[i - 1]! + step + r.int())

  const outcomes = Array.from({ length: r.uint() }, () => {
    const ok = r.uint()
    const status = r.uint()
    return { ok, status_code: status === 0 ? null : status - 1 }
  })
  const outcomeOf = readRuns(r, n)
  const errors = Array.from({ length: r.uint() }, () => untext.decode(r.bytes()))
  const errorOf = readRuns(r, n)

  return ts.map((t, i) => {
    const o = outcomes[outcomeOf[i]!]
    if (!o) throw new Error('packed attempts are corrupt')
    const ms = r.uint()
    const e = errorOf[i]!
    return { ts: t, ok: o.ok, response_ms: ms === 0 ? null : ms - 1, status_code: o.status_code, error: e === 0 ? null : (errors[e - 1] ?? null) }
  })
}
