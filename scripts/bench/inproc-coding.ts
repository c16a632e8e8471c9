/**
 * The alternatives measured for a record's coding and its row in the mirror of the newest
 * samples, and what the body's depth check and parse cost, on the real sample: `bun scripts/bench/inproc-coding.ts [sample.json]` (the sample
 * `dist/vigil agent --once` prints, or the file given). Each alternative is checked to give the
 * same bytes first; then they take turns, three rounds, CPU µs per record (or per row).
 */
import { Database } from 'bun:sqlite'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { constants, ZstdCompress, zstdCompressSync, zstdDecompressSync } from 'node:zlib'
import { exceedsJsonDepth } from '../../src/lib/json-depth'
import { FIELDS } from '../../src/modules/metrics/metrics.fields'
import { encodeHot, type HotPart } from '../../src/modules/metrics/metrics.hot'
import { zstdCompress, zstdDecompress } from '../../src/modules/metrics/metrics.hot.zstd'
import { toSampleRow } from '../../src/modules/metrics/metrics.rows'
import { realSample } from './storage-samples'

const file = process.argv[2]
const sample = file ? JSON.parse(readFileSync(file, 'utf8')) : await realSample(join(import.meta.dir, '../../dist/vigil'))
const partsOf = (s: Record<string, Record<string, unknown>>): HotPart[] =>
  (['hardware', 'network'] as const).map((kind) => {
    const r = toSampleRow(kind, s[kind]!, 0)
    return { kind, values: r.values, rest: r.rest }
  })
delete sample.recorded_at
const body = JSON.stringify(sample)
const parts = partsOf(sample)
// the next sample of the machine: its numbers moved a little
const moved = partsOf(JSON.parse(JSON.stringify(sample).replace(/\d\.\d/g, (m) => `${m[0]}.${(Number(m[2]) + 1) % 10}`)))
const ref = encodeHot(parts, null).ref
const text = encodeHot(moved, ref).ref

function time(name: string, n: number, per: number, fn: () => unknown) {
  const c0 = process.cpuUsage()
  for (let i = 0; i < n; i++) fn()
  const c = process.cpuUsage(c0)
  console.log(`${((c.user + c.system) / (n * per)).toFixed(2).padStart(7)} µs  ${name}`)
}
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b))
function check(name: string, ok: boolean) {
  if (!ok) throw new Error(`${name}: not the same bytes`)
}

// zstd: node:zlib's stream per call, the native handle made per call (used), one handle initialised again per call
const params = { [constants.ZSTD_c_compressionLevel]: 1 }
const Native = (new ZstdCompress() as unknown as { _handle: { constructor: new (mode: number) => NativeHandle } })._handle.constructor
interface NativeHandle {
  init(p: Uint32Array, size: undefined, state: Uint32Array, cb: () => void, dict?: Uint8Array): void
  writeSync(flush: number, i: Uint8Array, io: number, il: number, o: Uint8Array, oo: number, ol: number): void
}
const kept = new Native(constants.ZSTD_COMPRESS)
const nativeParams = new Uint32Array(constants.ZSTD_c_compressionLevel + 1).fill(0xffffffff)
nativeParams[constants.ZSTD_c_compressionLevel] = 1
const state = new Uint32Array(2)
const out = Buffer.allocUnsafe(16384)
const reinit = () => {
  kept.init(nativeParams, undefined, state, () => {}, ref)
  kept.writeSync(constants.ZSTD_e_end, text, 0, text.length, out, 0, out.length)
  return Buffer.from(out.subarray(0, out.length - state[0]!))
}
const viaStream = () => zstdCompressSync(text, { params, chunkSize: 2048, dictionary: ref })
check('native handle per call', same(zstdCompress(text, 1, ref), viaStream()))
check('one handle initialised again', same(reinit(), viaStream()))
// and back, as a read of the newest samples decodes each record of a run against the one before it
const packed = viaStream()
check('decoded on the native handle', same(zstdDecompress(packed, ref), text))

// the record's text: one string encoded (used), or its pieces written as UTF-8 into one reused buffer
const SEP = '\u0001'
const BIT = { hardware: 1, network: 2 }
const valueText = (v: number | null) => (v === null ? 'null' : Object.is(v, -0) ? '-0' : String(v))
const valuesLoop = (values: (number | null)[]) => {
  let t = '['
  for (let i = 0; i < values.length; i++) t += i ? `,${valueText(values[i] ?? null)}` : valueText(values[i] ?? null)
  return `${t}]`
}
const valuesJson = (values: (number | null)[]) => (values.some((v) => Object.is(v, -0)) ? valuesLoop(values) : JSON.stringify(values))
const head = (p: HotPart) => `${BIT[p.kind]}${SEP}${valuesLoop(p.values)}${SEP}${p.rest === null ? -1 : p.rest.length}${SEP}`
const utf8 = new TextEncoder()
const asString = () => utf8.encode(moved.map((p) => head(p) + (p.rest ?? '')).join(''))
const buffer = new Uint8Array(65536)
const asPieces = () => {
  let at = 0
  for (const p of moved) {
    at += utf8.encodeInto(head(p), buffer.subarray(at)).written
    if (p.rest !== null) at += utf8.encodeInto(p.rest, buffer.subarray(at)).written
  }
  return buffer.slice(0, at)
}
check('text as one string', same(asString(), text))
check('text in pieces', same(asPieces(), text))
for (const p of moved) check('values by JSON.stringify', valuesJson(p.values) === valuesLoop(p.values))

// the mirror's row: one INSERT per row (used), one INSERT of 50 rows, without the index on the id
const hot = [...FIELDS.hardware, ...FIELDS.network]
const cols = ['id', 'device_seq', 'ts', 'kinds', 'segment', ...hot.map((f) => f.name)]
const rowValues = [...moved[0]!.values, ...moved[1]!.values]
function mirror(name: string, idIndex: boolean, perStatement: number) {
  const db = new Database(':memory:')
  db.run('PRAGMA temp_store = MEMORY')
  const types = hot.map((f) => `${f.name} ${f.integer ? 'INTEGER' : 'REAL'}`)
  db.run(
    `CREATE TEMP TABLE rows (id INTEGER NOT NULL ${idIndex ? 'UNIQUE' : ''}, device_seq INTEGER NOT NULL, ts INTEGER NOT NULL, kinds INTEGER NOT NULL, ${types.join(', ')}, hw_rest TEXT, net_rest TEXT, segment INTEGER NOT NULL)`,
  )
  db.run('CREATE UNIQUE INDEX temp.rows_device_ts ON rows (device_seq, ts)')
  const one = `(${cols.map(() => '?').join(', ')})`
  const insert = db.prepare(`INSERT INTO temp.rows (${cols.join(', ')}) VALUES ${Array.from({ length: perStatement }, () => one).join(', ')}`)
  const DEVICES = 200
  const ROUNDS = 360 // an hour of a collector's 10 s: the mirror's size before sealing
  let id = 1
  time(name, ROUNDS, DEVICES, () => {
    db.run('BEGIN')
    for (let d = 0; d < DEVICES; d += perStatement) {
      const args: (number | null)[] = []
      for (let k = 0; k < perStatement; k++) args.push(id++, d + k, id * 10_000, 11, 0, ...rowValues)
      insert.run(...args)
    }
    db.run('COMMIT')
  })
  db.close()
}

const N = 20_000
for (let round = 1; round <= 3; round++) {
  console.log(`round ${round}`)
  time(`the body's depth check (${body.match(/[[{]/g)?.length ?? 0} brackets), per body`, N, 1, () => exceedsJsonDepth(body))
  time("the body's JSON.parse, per body", N, 1, () => JSON.parse(body))
  time("zstd through node:zlib's stream (zstdCompressSync), per record", N, 1, viaStream)
  time("zstd on node:zlib's native handle made for the call (used)", N, 1, () => zstdCompress(text, 1, ref))
  time('zstd on one native handle initialised again for each record', N, 1, reinit)
  time("a record decoded through node:zlib's stream (zstdDecompressSync)", N, 1, () => zstdDecompressSync(packed, { dictionary: ref }))
  time('a record decoded on the native handle made for the call (used)', N, 1, () => zstdDecompress(packed, ref))
  time("the record's text as one string, encoded (used)", N, 1, asString)
  time("the record's text written as UTF-8 piece by piece into one buffer", N, 1, asPieces)
  time('hot values by String() each (used)', N, 1, () => moved.map((p) => valuesLoop(p.values)))
  time('hot values by JSON.stringify of their array', N, 1, () => moved.map((p) => valuesJson(p.values)))
  mirror("the mirror's row, one INSERT each (used), per row", true, 1)
  mirror("the mirror's rows, one INSERT of 50 rows, per row", true, 50)
  mirror("the mirror's row without the index on the sample id, per row", false, 1)
}
