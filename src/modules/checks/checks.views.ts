import { notFound } from '../../http/errors'
import { toIso, type Clock } from '../../lib/clock'
import type {
  CheckDetail,
  CheckKind,
  CheckListItem,
  CheckResponse,
  CheckState,
  IncidentsPage,
  ResultsPage,
  ResultsQuery,
  SeriesQuery,
  SeriesResponse,
} from './checks.model'
import { HUB_PLACE } from './checks.attempt'
import { shownSettings } from './checks.secrets'
import { ATTENTION } from './checks.state'
import type { ChecksStore } from './checks.store'
import type { CheckRow } from './checks.store.rows'
import { DAY_MS, HOUR_MS, type ResultsStore } from './checks.summaries'
import type { IncidentsStore } from './checks.incidents'
import type { Static } from 'elysia'

/** What the views read: the check's rows, results and incidents, the client's devices, where heartbeat URLs point. */
interface ViewDeps {
  checks: Pick<ChecksStore, 'byId' | 'list' | 'places'>
  results: Pick<ResultsStore, 'uptime' | 'buckets' | 'percentiles' | 'page'>
  incidents: Pick<IncidentsStore, 'page'>
  clock: Clock
  /** the seq of one of the client's devices, or null when it has no such device */
  deviceSeq: (clientId: string, deviceId: string) => Promise<number | null>
  siteUrl: string
}

const iso = (ms: number | null) => (ms === null ? null : toIso(ms))
const HALF_HOUR = HOUR_MS / 2

export const stateOf = (row: CheckRow): CheckState => (row.paused ? 'paused' : (row.state as CheckState))

export async function checkView(deps: ViewDeps, row: CheckRow, token: string | null): Promise<CheckResponse> {
  const deviceIds = JSON.parse(row.device_ids) as string[]
  const stored = new Map((await deps.checks.places(row.seq)).map((p) => [p.place, p]))
  const where: { name: string; seq: number | null }[] = [
    ...(row.run_on_hub && row.kind !== 'heartbeat' ? [{ name: 'hub', seq: HUB_PLACE }] : []),
    ...(row.kind === 'heartbeat' ? [{ name: 'heartbeat', seq: HUB_PLACE }] : []),
  ]
  for (const id of deviceIds) where.push({ name: id, seq: await deps.deviceSeq(row.client_id, id) })
  const heartbeat = row.kind === 'heartbeat'
  const base = `${deps.siteUrl.replace(/\/$/, '')}/hb/`
  return {
    id: row.id,
    name: row.name,
    kind: row.kind as CheckKind,
    settings: shownSettings(row.settings),
    interval_s: row.interval_s,
    timeout_ms: row.timeout_ms,
    down_after: row.down_after,
    up_after: row.up_after,
    run_on_hub: row.run_on_hub === 1,
    device_ids: deviceIds,
    depends_on_device_id: row.depends_on_device_id,
    paused: row.paused === 1,
    state: stateOf(row),
    state_since: iso(row.state_since),
    last_checked_at: iso(row.last_checked_at),
    last_response_ms: row.last_response_ms,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    cert_expires_at: iso(row.cert_expires_at),
    places: where.map((w) => {
      const p = w.seq === null ? undefined : stored.get(w.seq)
      return {
        place: w.name,
        state: row.paused ? 'paused' : ((p?.state ?? 'pending') as CheckState),
        last_checked_at: iso(p?.last_ts ?? null),
        ok: p?.last_ok === undefined || p.last_ok === null ? null : p.last_ok === 1,
        response_ms: p?.last_response_ms ?? null,
        error: p?.last_error ?? null,
      }
    }),
    heartbeat_token: token,
    heartbeat_url: heartbeat ? `${base}${token ?? '<token>'}` : null,
    heartbeat_token_hint: row.hb_token_hint,
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  }
}

/** Every check of the account with uptime and a sparkline, those that need attention first. */
export async function listChecks(deps: ViewDeps, clientId: string): Promise<CheckListItem[]> {
  const now = deps.clock.now()
  // 48 half hours, the last one the current
  const from = now - (now % HALF_HOUR) - 47 * HALF_HOUR
  const rows = (await deps.checks.list(clientId)).toSorted(
    (a, b) => ATTENTION[stateOf(a)]! - ATTENTION[stateOf(b)]! || a.name.localeCompare(b.name) || a.id.localeCompare(b.id),
  )
  const out: CheckListItem[] = []
  for (const row of rows)
    out.push({
      ...(await checkView(deps, row, null)),
      uptime_24h: await deps.results.uptime(row.seq, now, 24 * HOUR_MS),
      sparkline: (await deps.results.buckets(row.seq, from, HALF_HOUR, 48)).map((b) => b.avg_ms),
    })
  return out
}

export async function getCheckDetail(deps: ViewDeps, clientId: string, checkId: string): Promise<CheckDetail> {
  const row = await deps.checks.byId(clientId, checkId)
  if (!row) throw notFound('Check')
  const now = deps.clock.now()
  const up = (days: number) => deps.results.uptime(row.seq, now, days * DAY_MS)
  const [d1, d7, d30, d365, p24, p30] = await Promise.all([
    up(1),
    up(7),
    up(30),
    up(365),
    deps.results.percentiles(row.seq, now, DAY_MS),
    deps.results.percentiles(row.seq, now, 30 * DAY_MS),
  ])
  return {
    ...(await checkView(deps, row, null)),
    uptime: { '24h': d1, '7d': d7, '30d': d30, '365d': d365 },
    response_time: { '24h': p24, '30d': p30 },
  }
}

export async function resultsPage(deps: ViewDeps, clientId: string, checkId: string, q: ResultsQuery): Promise<Static<typeof ResultsPage>> {
  const row = await deps.checks.byId(clientId, checkId)
  if (!row) throw notFound('Check')
  const deviceIds = JSON.parse(row.device_ids) as string[]
  const names = new Map<number, string>([[HUB_PLACE, row.kind === 'heartbeat' ? 'heartbeat' : 'hub']])
  for (const id of deviceIds) {
    const seq = await deps.deviceSeq(clientId, id)
    if (seq !== null) names.set(seq, id)
  }
  let place = -1
  if (q.place !== undefined) {
    const found = [...names].find(([, n]) => n === q.place)
    if (!found) return { items: [], limit: q.limit, offset: q.offset, total: 0 }
    place = found[0]
  }
  const { rows, total } = await deps.results.page(row.seq, place, q.limit, q.offset)
  return {
    items: rows.map((r) => ({
      ts: toIso(r.ts),
      place: names.get(r.place) ?? 'removed device',
      ok: r.ok === 1,
      response_ms: r.response_ms,
      status_code: r.status_code,
      error: r.error,
    })),
    limit: q.limit,
    offset: q.offset,
    total,
  }
}

/** The resolution each range is drawn at: about 60 to 365 points, from the finest tier kept for it. */
const STEPS: Record<SeriesQuery['range'], { span: number; step: number }> = {
  '1h': { span: HOUR_MS, step: 60_000 },
  '6h': { span: 6 * HOUR_MS, step: 5 * 60_000 },
  '24h': { span: DAY_MS, step: 15 * 60_000 },
  '7d': { span: 7 * DAY_MS, step: HOUR_MS },
  '30d': { span: 30 * DAY_MS, step: 6 * HOUR_MS },
  '90d': { span: 90 * DAY_MS, step: DAY_MS },
  '365d': { span: 365 * DAY_MS, step: DAY_MS },
}

export async function series(deps: ViewDeps, clientId: string, checkId: string, range: SeriesQuery['range']): Promise<Static<typeof SeriesResponse>> {
  const row = await deps.checks.byId(clientId, checkId)
  if (!row) throw notFound('Check')
  const { span, step } = STEPS[range]
  const now = deps.clock.now()
  const count = span / step
  // the last step is the current one
  const from = now - (now % step) - (count - 1) * step
  return {
    range,
    step_s: step / 1000,
    points: (await deps.results.buckets(row.seq, from, step, count)).map((b) => ({ t: toIso(b.t), avg_ms: b.avg_ms, max_ms: b.max_ms, uptime: b.uptime })),
  }
}

export async function incidentsPage(deps: ViewDeps, clientId: string, checkId: string, limit: number, offset: number): Promise<Static<typeof IncidentsPage>> {
  if (!(await deps.checks.byId(clientId, checkId))) throw notFound('Check')
  const { rows, total } = await deps.incidents.page(clientId, checkId, limit, offset)
  return {
    items: rows.map((r) => ({
      id: r.id,
      started_at: toIso(r.started_at),
      ended_at: iso(r.ended_at),
      cause: r.cause,
      duration_s: r.ended_at === null ? null : Math.round((r.ended_at - r.started_at) / 1000),
    })),
    limit,
    offset,
    total,
  }
}
