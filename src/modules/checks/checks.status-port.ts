import { toIso, type Clock } from '../../lib/clock'
import type { IncidentsStore } from './checks.incidents'
import type { ChecksStore } from './checks.store'
import { DAY_MS, HOUR_MS, type ResultsStore } from './checks.summaries'
import { stateOf } from './checks.views'
import type { StatusChecksPort, StatusPageCheck, StatusPageChecks } from '../status-pages/status-pages.ports'
import type { StatusCheckRow, StatusReads } from './checks.status-reads'

/** Steps of about 100 points: 5 min up to 6 h, 15 min to 24 h, hours to 7 days, then days. */
function stepFor(hours: number): number {
  if (hours <= 6) return 5 * 60_000
  if (hours <= 24) return 15 * 60_000
  if (hours <= 24 * 7) return HOUR_MS
  return DAY_MS
}

/** The dates of `days` UTC days from `first` on (made once per call, not per check). */
const labelsOf = (first: number, days: number) => Array.from({ length: days }, (_, i) => toIso((first + i) * DAY_MS).slice(0, 10))

/** What the status pages' reads of one check take from the module. */
interface StatusPortDeps {
  checks: Pick<ChecksStore, 'byId'>
  results: Pick<ResultsStore, 'days' | 'buckets'>
  incidents: Pick<IncidentsStore, 'since'>
  clock: Clock
}

/**
 * The checks as status pages read them. `reads` answers a page's build (pageChecks); the other
 * methods read one check at a time through the module's stores.
 */
export function statusChecksPort(deps: StatusPortDeps, reads?: StatusReads): StatusChecksPort & { stored(checkId: string, ts: number): void; forget(): void } {
  const settled = { days: createSettled(SETTLED_KEPT), hours: createSettled(SETTLED_KEPT) }
  const owned = (clientId: string, checkId: string) => deps.checks.byId(clientId, checkId)
  /** one entry per day from the day rows, down time from the check's incidents */
  const dayList = async (
    clientId: string,
    checkId: string,
    rows: { day: number; total: number; ok: number }[],
    first: number,
    days: number,
    now: number,
    labels: string[],
  ) => {
    const byDay = new Map(rows.map((d) => [d.day, d]))
    const downs = await deps.incidents.since(clientId, checkId, first * DAY_MS)
    return Array.from({ length: days }, (_, i) => {
      const d = byDay.get(first + i)
      const start = (first + i) * DAY_MS
      const end = Math.min(start + DAY_MS, now)
      let down = 0
      for (const inc of downs) down += Math.max(0, Math.min(end, inc.ended_at ?? now) - Math.max(start, inc.started_at))
      return { day: labels[i]!, uptime: d?.total ? Math.round((d.ok / d.total) * 1e5) / 1e3 : null, down_s: Math.round(down / 1000) }
    })
  }
  return {
    async views(clientId, ids) {
      const rows = await Promise.all(ids.map((id) => owned(clientId, id)))
      return rows.flatMap((row) => {
        if (!row) return []
        return [
          {
            id: row.id,
            name: row.name,
            kind: row.kind,
            state: stateOf(row),
            last_checked_at: row.last_checked_at === null ? null : toIso(row.last_checked_at),
            response_ms: row.last_response_ms,
          },
        ]
      })
    },
    async uptimeByDay(clientId, checkId, days) {
      const row = await owned(clientId, checkId)
      const now = deps.clock.now()
      const first = Math.floor(now / DAY_MS) - days + 1
      const rows = row ? await deps.results.days(row.seq, first) : []
      return dayList(clientId, checkId, rows, first, days, now, labelsOf(first, days))
    },
    async responseTimes(clientId, checkId, hours) {
      const row = await owned(clientId, checkId)
      if (!row) return []
      const step = stepFor(hours)
      const now = deps.clock.now()
      const count = Math.max(1, Math.ceil((hours * HOUR_MS) / step))
      const from = now - (now % step) - (count - 1) * step
      return (await deps.results.buckets(row.seq, from, step, count)).map((b) => [b.t, b.avg_ms] as [number, number | null])
    },
    /** what was kept may be stale (another hub's late results were missed): every span is read again */
    forget() {
      settled.days.clear()
      settled.hours.clear()
    },
    /** the checks module stored an attempt of this check at `ts` (a late one lands in a kept span) */
    stored(checkId, ts) {
      settled.days.stored(checkId, ts)
      settled.hours.stored(checkId, ts)
    },
    async pageChecks(clientId, ids, opts) {
      if (!reads) throw new Error('the status pages read their checks through createStatusReads: pass it to statusChecksPort')
      return pageChecks(reads, settled, deps.clock.now(), clientId, ids, opts)
    },
    async incidents(clientId, checkId, sinceMs) {
      if (!(await owned(clientId, checkId))) return []
      return (await deps.incidents.since(clientId, checkId, sinceMs)).map((r) => ({
        started_at: toIso(r.started_at),
        ended_at: r.ended_at === null ? null : toIso(r.ended_at),
        cause: r.cause,
      }))
    },
  }
}

const uptimeOf = (ok: number, total: number) => Math.round((ok / total) * 1e5) / 1e5

/**
 * Figures of spans that are settled but for late results (the days before today, the hours
 * before this one), per check: read once, then kept until a result is stored inside the span
 * (`stored`, which the checks module calls for every attempt it stores: a late one from an agent
 * drops the check's kept spans) or the span moves (a new day or hour). Whatever writes the
 * summaries, a kept span is read again within SETTLED_REREAD_MS: each check after its own share
 * of it (half to all of it, by its id), so a page's checks are not all read again in one build.
 * At most `max` checks are kept (the least recently used out first): one pushed out is read
 * again, as the first build read it.
 */
function createSettled(max: number) {
  const kept = new Map<string, { from: number; endMs: number; until: number; values: Float64Array }>()
  const rereadAfter = (id: string) => SETTLED_REREAD_MS / 2 + (Bun.hash.crc32(id) % (SETTLED_REREAD_MS / 2))
  return {
    /** the values of the span [from, to) (ending at `endMs`) of each of `ids`: kept ones, the rest filled by `load` (NaN where it fills none) */
    async read(ids: string[], from: number, to: number, endMs: number, now: number, load: (stale: string[], out: Map<string, Float64Array>) => Promise<void>) {
      const out = new Map<string, Float64Array>()
      const stale: string[] = []
      for (const id of ids) {
        let hit = kept.get(id)
        kept.delete(id)
        if (!hit || hit.from !== from || now >= hit.until) {
          hit = { from, endMs, until: now + rereadAfter(id), values: new Float64Array(to - from).fill(Number.NaN) }
          stale.push(id)
        }
        kept.set(id, hit)
        out.set(id, hit.values)
      }
      if (stale.length) await load(stale, out)
      for (const id of kept.keys()) {
        if (kept.size <= max) break
        kept.delete(id)
      }
      return out
    },
    clear: () => kept.clear(),
    /** an attempt of `id` stored at `ts`: a kept span it falls in is stale */
    stored(id: string, ts: number) {
      const hit = kept.get(id)
      if (hit && ts < hit.endMs) kept.delete(id)
    },
  }
}
type Settled = ReturnType<typeof createSettled>

/** checks whose settled days and hours are kept: an account's pages list at most 2,000; about 0.9 KB each */
const SETTLED_KEPT = 5_000
/** the longest a kept span goes unread: a bound on a write the checks module did not announce */
export const SETTLED_REREAD_MS = 10 * 60_000

const asState = (row: StatusCheckRow) => (row[4] ? 'paused' : row[5]) as StatusPageCheck['state']

/**
 * A page's checks in a fixed number of reads whatever their number (the checks; today's and this
 * hour's summary rows; their incidents; the past days and hours only of the checks whose kept
 * ones are stale), the figures straight into typed arrays: no object per day or hour.
 */
async function pageChecks(
  reads: StatusReads,
  settled: { days: Settled; hours: Settled },
  now: number,
  clientId: string,
  ids: string[],
  opts: { days: number; hours: number; charted: string[] },
): Promise<StatusPageChecks> {
  const firstDay = Math.floor(now / DAY_MS) - opts.days + 1
  const firstHour = Math.floor(now / HOUR_MS) - opts.hours + 1
  const out: StatusPageChecks = { firstDay, firstHourMs: firstHour * HOUR_MS, checks: new Map() }
  if (!ids.length) return out
  const rows = await reads.checks(clientId, ids)
  const bySeq = new Map<number, StatusPageCheck>()
  const charted = new Set(opts.charted)
  for (const row of rows) {
    const check: StatusPageCheck = {
      id: row[0],
      name: row[2],
      kind: row[3],
      state: asState(row),
      last_checked_at: row[6] === null ? null : toIso(row[6]),
      response_ms: row[7],
      uptime: new Float64Array(opts.days).fill(Number.NaN),
      down_s: new Float64Array(opts.days),
      down_since: null,
      hourly: charted.has(row[0]) ? new Float64Array(opts.hours).fill(Number.NaN) : null,
    }
    bySeq.set(row[1], check)
  }
  // in the order asked, as the page lists them
  const byId = new Map([...bySeq.values()].map((c) => [c.id, c]))
  for (const id of ids) {
    const c = byId.get(id)
    if (c && !out.checks.has(id)) out.checks.set(id, c)
  }
  if (!bySeq.size) return out
  const seqs = [...bySeq.keys()]
  // the days before today and the hours before this one as kept; today and this hour as they are
  const seqById = new Map([...bySeq].map(([seq, c]) => [c.id, seq]))
  const seqOf = (id: string) => seqById.get(id)!
  const today = firstDay + opts.days - 1
  const pastDays = await settled.days.read([...out.checks.keys()], firstDay, today, today * DAY_MS, now, async (stale, kept) => {
    for (const [seq, day, total, ok] of await reads.days(stale.map(seqOf), firstDay, today))
      if (total) kept.get(bySeq.get(seq)!.id)![day - firstDay] = uptimeOf(ok, total)
  })
  for (const [id, past] of pastDays) out.checks.get(id)!.uptime.set(past)
  for (const [seq, , total, ok] of await reads.days(seqs, today, today + 1)) {
    const c = bySeq.get(seq)
    if (c && total) c.uptime[opts.days - 1] = uptimeOf(ok, total)
  }
  const chartedIds = [...out.checks.values()].filter((c) => c.hourly).map((c) => c.id)
  if (chartedIds.length) {
    const thisHour = firstHour + opts.hours - 1
    const pastHours = await settled.hours.read(chartedIds, firstHour, thisHour, thisHour * HOUR_MS, now, async (stale, kept) => {
      for (const [seq, hour, sum, n] of await reads.hours(stale.map(seqOf), firstHour, thisHour))
        if (n) kept.get(bySeq.get(seq)!.id)![hour - firstHour] = Math.round(sum / n)
    })
    for (const [id, past] of pastHours) out.checks.get(id)!.hourly!.set(past)
    for (const [seq, , sum, n] of await reads.hours(chartedIds.map(seqOf), thisHour, thisHour + 1))
      if (n) bySeq.get(seq)!.hourly![opts.hours - 1] = Math.round(sum / n)
  }
  // down time per day: each incident spread over the days it overlaps (milliseconds, whole seconds at the end)
  const downMs = new Map<string, Float64Array>()
  const start = firstDay * DAY_MS
  for (const [id, started, ended] of await reads.incidents(clientId, [...out.checks.keys()], start)) {
    const c = out.checks.get(id)
    if (!c) continue
    if (ended === null && c.state === 'down' && c.down_since === null) c.down_since = toIso(started)
    let ms = downMs.get(id)
    if (!ms) downMs.set(id, (ms = new Float64Array(opts.days)))
    const to = Math.min(ended ?? now, now)
    for (let i = Math.max(0, Math.floor((started - start) / DAY_MS)); i < opts.days; i++) {
      const from = start + i * DAY_MS
      if (from >= to) break
      ms[i]! += Math.max(0, Math.min(from + DAY_MS, now, to) - Math.max(from, started))
    }
  }
  for (const [id, ms] of downMs) {
    const c = out.checks.get(id)!
    for (let i = 0; i < opts.days; i++) c.down_s[i] = Math.round(ms[i]! / 1000)
  }
  return out
}
