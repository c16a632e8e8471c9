/**
 * `bun scripts/bench/reads-steps.ts <data dir> [--pages N] [--before-block <file>]`: where one cold
 * history page of 120 at a random offset in 30 days spends its CPU, step by step, in process, on
 * the data dir `bun run bench --reads-only --reads-data <dir>` seeded (the hub stopped). Each
 * step is timed by the process's CPU time, over N pages (300) after 30 unmeasured ones, and
 * before them the first page at the far end (every hour above it counted, as after a start):
 * locating the page (by the hour counts, and by stepping over the index as before), its rows,
 * its blocks decoded and their texts written out (and with an earlier metrics.block.ts, e.g. one
 * `git archive <commit> src | tar -x -C /tmp/before` extracted, for the earlier decoding), the
 * total beside it, and the page written as JSON bytes. Opened read and write: the hour counts'
 * temporary tables and triggers are the connection's own, and nothing is written to the file.
 */
import { readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/db/connection'
import { JsonBytes } from '../../src/lib/json-bytes'
import { decodeBlock, type DecodedBlock } from '../../src/modules/metrics/metrics.block'
import { openBlockLog } from '../../src/modules/metrics/metrics.block.log'
import { BLOCK_MS } from '../../src/modules/metrics/metrics.block.store'
import { FIELDS, hasKind, restColumn } from '../../src/modules/metrics/metrics.fields'
import { createHistoryStore } from '../../src/modules/metrics/metrics.history.store'
import { PARKED_BITS } from '../../src/modules/metrics/metrics.block.store'
import { writePage } from '../../src/modules/metrics/metrics.rows'
import { createMetricsStore } from '../../src/modules/metrics/metrics.store'
import { SLOT, splitNumbers, templateText } from '../../src/modules/metrics/metrics.templates'
import { templateBytes } from '../../src/modules/metrics/metrics.templates.bytes'

const argv = process.argv.slice(2)
const opt = (name: string) => {
  const i = argv.indexOf(name)
  return i === -1 ? undefined : argv[i + 1]
}
const dir = argv[0]
if (!dir || dir.startsWith('--')) throw new Error('usage: bun scripts/bench/reads-steps.ts <data dir> [--pages N] [--before-block <file>]')
const PAGES = Number(opt('--pages') ?? 300)
const beforeBlock = opt('--before-block')
const decodeBefore = beforeBlock ? ((await import(beforeBlock)) as { decodeBlock: (data: Uint8Array) => DecodedBlock }).decodeBlock : undefined

const world = JSON.parse(readFileSync(join(dir, 'seeded.json'), 'utf8')) as { tenant: { devices: { id: string; seq: number }[] } }
const device = world.tenant.devices[0]!
const db = openDatabase(join(dir, 'vigil.db'))
const sqlite = db.sqlite
const store = createMetricsStore(sqlite)
const history = createHistoryStore(sqlite)
const kind = 'hardware'
const MAX = Number.MAX_SAFE_INTEGER
const samples = sqlite.query<{ n: number }, [number]>('SELECT count(*) AS n FROM main.metric_samples WHERE device_seq = ?').get(device.seq)!.n
const stepped = sqlite.query<{ ts: number }, [number, number]>('SELECT ts FROM main.metric_samples WHERE device_seq = ? ORDER BY ts DESC LIMIT 1 OFFSET ?')
// the blocks' bytes where the hub keeps them (files beside the database, or BLOBs of an earlier release)
const blockLog = openBlockLog(sqlite)
// the page's rows as metrics.store.ts reads them
const rest = `CASE WHEN ${restColumn(kind)} IS NULL AND (kinds & ${PARKED_BITS}) != 0 THEN '' ELSE ${restColumn(kind)} END AS rest`
const rowsOf = sqlite.query(
  `SELECT id, ts, ${FIELDS[kind].map((f) => f.name).join(', ')}, ${rest} FROM metric_samples WHERE device_seq = ? AND ts >= ? AND ts <= ? AND ${hasKind(kind)} ORDER BY ts DESC, id DESC LIMIT 120`,
)

const cpuMs = () => {
  const c = process.cpuUsage()
  return (c.user + c.system) / 1000
}
const spent: Record<string, number> = {}
function step<T>(name: string, f: () => T): T {
  const c = cpuMs()
  const r = f()
  spent[name] = (spent[name] ?? 0) + cpuMs() - c
  return r
}
const out = new JsonBytes()
const sink = Buffer.alloc(1 << 16)
const restAt = FIELDS[kind].length + 2
const load0 = loadavg()[0]!
// the first page at the far end after a start: every hour above it counted, once
const timed = (f: () => unknown) => {
  const c = cpuMs()
  f()
  return cpuMs() - c
}
const far = timed(() => history.pageStart(kind, device.seq, 0, MAX, samples - 120))
// and the same page by stepping over the index entries above it, as before
const farStepped = timed(() => stepped.get(device.seq, samples - 120))
for (let i = 0; i < PAGES + 30; i++) {
  if (i === 30) for (const k in spent) spent[k] = 0
  // past the newest two hours (720 at 10 s), which may not be sealed yet: every page in blocks
  const offset = 720 + Math.floor(Math.random() * (samples - 840))
  step('locating the page by stepping over the index (before)', () => stepped.get(device.seq, offset))
  const start = step('locating the page by the hour counts', () => history.pageStart(kind, device.seq, 0, MAX, offset))!
  const rows = step('its 120 rows', () => rowsOf.values(device.seq, 0, start) as unknown[][])
  const byBlock = new Map<number, number[]>()
  for (const r of rows) {
    const s = Math.floor((r[1] as number) / BLOCK_MS) * BLOCK_MS
    let ids = byBlock.get(s)
    if (!ids) byBlock.set(s, (ids = []))
    ids.push(r[0] as number)
  }
  const blocks = [...byBlock].map(([s, ids]) => ({ data: blockLog.read(device.seq, s)!.load(), ids }))
  // each text written out as the page writes it (a rope is flattened there)
  const texts = (decode: (data: Uint8Array) => DecodedBlock) => {
    const all: (string | null)[] = []
    for (const b of blocks) {
      const d = decode(b.data)
      for (const id of b.ids) {
        const t = d.text(id, kind) ?? null
        if (t) sink.write(t, 0)
        all.push(t)
      }
    }
    return all
  }
  if (decodeBefore) step('its blocks decoded, texts written out (earlier decoding)', () => texts(decodeBefore))
  // as a page is answered now: no string, each text written into the answer as bytes
  const answer = new JsonBytes()
  step('its blocks decoded, texts written into the answer as bytes', () => {
    answer.reset()
    for (const b of blocks) {
      const d = decodeBlock(b.data)
      for (const id of b.ids) d.writeMembers(id, kind, answer)
    }
  })
  const decoded = step('its blocks decoded, texts made into strings and written out', () => texts(decodeBlock))
  rows.forEach((r, k) => {
    r[restAt] = decoded[k]
  })
  step('the total beside it', () => {
    store.oldestTs(kind, device.seq)
    const done = store.doneUntil(kind)['1h']
    store.count(kind, device.seq, 0, 100)
    store.hourlyCount(kind, device.seq, 0, done)
    store.count(kind, device.seq, done, MAX)
  })
  step('the page written as JSON bytes', () => writePage(out.reset(), kind, rows, device.id).take())
  // the page's texts made again from their templates and numbers, three ways, each written out
  const split = decoded.filter((t): t is string => t !== null).map((t) => splitNumbers(t))
  const coded = split.map((x) => ({ parts: x.template.split(SLOT), write: templateText(x.template), values: Float64Array.from(x.numbers) }))
  step('texts only: joined from strings (a rope), written out', () => {
    for (const c of coded) {
      let t = c.parts[0]!
      for (let k = 1; k < c.parts.length; k++) t += String(c.values[k - 1]) + c.parts[k]!
      sink.write(t, 0)
    }
  })
  step('texts only: an array of strings joined, written out', () => {
    for (const c of coded) {
      const a: string[] = [c.parts[0]!]
      for (let k = 1; k < c.parts.length; k++) a.push(String(c.values[k - 1]), c.parts[k]!)
      sink.write(a.join(''), 0)
    }
  })
  step('texts only: written as bytes, taken as a string, written out', () => {
    for (const c of coded) sink.write(c.write(c.values, 0), 0)
  })
  const direct = coded.map((c) => templateBytes(c.parts.join(SLOT)))
  step('texts only: written as bytes straight into the answer', () => {
    answer.reset()
    for (let k = 0; k < coded.length; k++) direct[k]!(answer, coded[k]!.values, 0)
  })
}
db.close()
console.log(
  `\nOne cold history page of 120 at a random offset (${samples} samples of one device), CPU per page over ${PAGES} pages; load average ${load0.toFixed(2)} → ${loadavg()[0]!.toFixed(2)}\n`,
)
console.log(
  `The first page at the far end after a start (every hour above it counted): ${far.toFixed(2)} ms; stepping over the index to it: ${farStepped.toFixed(2)} ms\n`,
)
console.log('| step | CPU per page |\n|---|---|')
for (const [name, ms] of Object.entries(spent)) console.log(`| ${name} | ${(ms / PAGES).toFixed(3)} ms |`)
