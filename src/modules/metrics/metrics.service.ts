import { AppError } from '../../http/errors'
import type { KeyPrincipal } from '../../http/principal'
import type { Clock } from '../../lib/clock'
import { toIso } from '../../lib/clock'
import { CLOSE_BRACE, JsonBytes } from '../../lib/json-bytes'
import { HOUR_MS, levelName, type LevelName, type MetricKind } from './metrics.fields'
import type { CheckResultIn } from '../checks/checks.model'
import type { BatchMetricIn, HistoryQuery } from './metrics.model'
import { recordedAt, rowValues, toSampleRow, writePage, type SampleRow } from './metrics.rows'
import type { MetricsStore } from './metrics.store'
import type { MetricsReads } from './metrics.reads'
import { read, stepsAwait, stepsNow, type Steps } from './metrics.steps'
import type { SeriesStore } from './metrics.series.store'
import type { FleetReads } from './metrics.fleet'
import type { SeriesReads } from './metrics.series.reads'
import { levelForHours, summarizeKind } from './metrics.summary'
import type { MetricsSummary } from './metrics.summary.model'
import type { MetricWriter } from './metrics.writer'

/** A device as the metric tables know it: its id, and the integer seq they are keyed on. */
export interface MetricDevice {
  id: string
  seq: number
}

/** What metrics needs of the devices domain. */
export interface MetricDevices {
  /**
   * The device a collector's sample belongs to: the key's bound device, else the one named,
   * else the client's only device (404, 403 device_mismatch or 422 device_required otherwise).
   */
  resolve(key: Pick<KeyPrincipal, 'clientId' | 'deviceId'>, named: string | null | undefined): MetricDevice
  /** A device of this client for a portal read; 404 otherwise. */
  ref(clientId: string, deviceId: string): MetricDevice
  /** every device's seq */
  seqs(): number[]
}

export interface MetricsDeps {
  /** the reads on this hub's engine: the routes await them */
  reads: MetricsReads
  /**
   * SQLite's reads, answering at once, for the other domains' synchronous ports (the alerts' disk
   * trend, the scrape, the AI's summary and series, the operator's counts)
   */
  store: MetricsStore
  /** the chart reads of one device's series on this hub's engine (the series route) */
  seriesReads: SeriesReads
  /** SQLite's chart reads */
  series: SeriesStore
  /** the fleet overview's reads and the devices' reporting intervals on this hub's engine */
  fleet: FleetReads
  /** how long each level keeps its rows (ms): the series' `auto` skips a level pruned at the range's start */
  retentionMs: Record<LevelName, number>
  /** the one writer of this hub: ingest requests share its group commits (metrics.writer.ts, metrics.writer.pg.ts) */
  writer: Pick<MetricWriter, 'submit' | 'hold' | 'queued'>
  clock: Clock
  devices: MetricDevices
  /** told of every stored sample, after its commit (the /metrics counters) */
  ingested?: (kind: MetricKind, samples: number) => void
  /** told of every newly stored sample with its values, after its commit (live stream, alerts); never of a repeat */
  stored?: (sample: StoredSample) => void
  /** handed a batch's parts beside its samples (containers, disks_smart) after the samples' commit */
  extras?: (extras: BatchExtras) => void
  /** results of checks the device's agent runs, carried in its batch (the checks module stores them, each once); stored before the batch is answered, a throw answers its error */
  checkResults?: (clientId: string, deviceId: string, results: CheckResultIn[]) => Promise<void> | void
}

/** The parts of one batch beside hardware and network, for the modules that store them. */
export interface BatchExtras {
  clientId: string
  device: MetricDevice
  /** the batch's recorded_at (ms), else the hub's clock */
  ts: number
  /** false when the hub stamped the time itself */
  sent: boolean
  /** the item carried hardware or network parts: the metric writer marks the device seen */
  withSamples: boolean
  containers: NonNullable<BatchMetricIn['containers']> | null
  disks_smart: NonNullable<BatchMetricIn['disks_smart']> | null
  /** a listener's write: the batch is answered once every one has settled (a failure answers the batch's error) */
  wait(done: Promise<unknown>): void
}

type ExtrasPart = Pick<BatchMetricIn, 'containers' | 'disks_smart' | 'recorded_at' | 'hardware' | 'network'>

/**
 * Hands items' other parts to their modules, in order, and waits until they are stored (items
 * handed together share their modules' group commit).
 */
export async function storeExtras(
  deps: Pick<MetricsDeps, 'extras' | 'clock'>,
  clientId: string,
  device: MetricDevice,
  items: ExtrasPart[],
  fallbackTs?: number,
) {
  if (!deps.extras) return
  const waits: Promise<unknown>[] = []
  for (const item of items) {
    if (!item.containers && !item.disks_smart) continue
    const sent = item.recorded_at ?? item.hardware?.recorded_at ?? item.network?.recorded_at
    deps.extras({
      clientId,
      device,
      ts: sent ? recordedAt(sent, deps.clock.now()) : (fallbackTs ?? deps.clock.now()),
      sent: !!sent,
      withSamples: !!(item.hardware || item.network),
      containers: item.containers ?? null,
      disks_smart: item.disks_smart ?? null,
      wait: (p) => void waits.push(p),
    })
  }
  await Promise.all(waits)
}

/** A sample as it was just stored: whose, when, and the fields as the collector sent them. */
export interface StoredSample {
  clientId: string
  deviceId: string
  /** the device's seq (what the metric tables key it by) */
  seq?: number
  kind: MetricKind
  /** recorded_at, ms since the epoch */
  ts: number
  values: Record<string, unknown>
  /** its hot values as stored (metrics.rows.ts: FIELDS order, disk_used_percent derived) */
  hot?: readonly (number | null)[]
}

/** Stores one hardware or network sample; resolves after COMMIT. A repeat answers the stored row's id. */
export async function ingestOne(deps: MetricsDeps, key: KeyPrincipal, kind: MetricKind, body: Record<string, unknown>, headerDevice: string | null) {
  const device = deps.devices.resolve(key, headerDevice ?? (body.device_id as string | null | undefined))
  const sent = body.recorded_at as string | null | undefined
  const row = toSampleRow(kind, body, recordedAt(sent, deps.clock.now()), !!sent)
  const { ids, duplicate } = await deps.writer.submit({ deviceSeq: device.seq, samples: [row] })
  if (!duplicate?.[0]) {
    deps.ingested?.(kind, 1)
    deps.stored?.({ clientId: key.clientId, deviceId: device.id, seq: device.seq, kind, ts: row.ts, values: body, hot: row.values })
  }
  return { id: ids[0]!, device_id: device.id, recorded_at: toIso(row.ts) }
}

/** The hardware and network parts of one batch as rows: each part's recorded_at, else the batch's, else the hub's clock. */
export function batchRows(body: Pick<BatchMetricIn, 'hardware' | 'network' | 'recorded_at'>, now: number): SampleRow[] {
  const samples: SampleRow[] = []
  for (const kind of ['hardware', 'network'] as const) {
    const part = body[kind]
    if (!part) continue
    const sent = part.recorded_at ?? body.recorded_at
    samples.push(toSampleRow(kind, part, recordedAt(sent, now), !!sent))
  }
  return samples
}

/**
 * Stores the hardware and network parts of one request atomically: both or neither. A part
 * the hub already holds (same device and recorded_at) is not stored again: the answer carries
 * the stored row's id, so a collector that retries cannot tell, and need not.
 */
export async function ingestBatch(deps: MetricsDeps, key: KeyPrincipal, body: BatchMetricIn, headerDevice: string | null) {
  const device = deps.devices.resolve(key, headerDevice ?? body.device_id)
  const samples = batchRows(body, deps.clock.now())
  const { ids, duplicate } = samples.length ? await deps.writer.submit({ deviceSeq: device.seq, samples }) : { ids: [], duplicate: null }
  for (let i = 0; i < samples.length; i++) {
    if (duplicate?.[i]) continue
    const { kind, ts, values } = samples[i]!
    deps.ingested?.(kind, 1)
    deps.stored?.({ clientId: key.clientId, deviceId: device.id, seq: device.seq, kind, ts, values: body[kind] as Record<string, unknown>, hot: values })
  }
  await storeExtras(deps, key.clientId, device, [body], samples[0]?.ts)
  if (body.check_results?.length) await deps.checkResults?.(key.clientId, device.id, body.check_results)
  const part = (kind: MetricKind) => {
    const i = samples.findIndex((s) => s.kind === kind)
    return i === -1 ? null : { id: ids[i]!, recorded_at: toIso(samples[i]!.ts) }
  }
  return { device_id: device.id, hardware: part('hardware'), network: part('network') }
}

function dateParam(raw: string | null | undefined, param: string, def: number): number {
  if (!raw) return def
  const t = Date.parse(raw)
  if (Number.isNaN(t)) throw new AppError('invalid_parameter', `${param} is not a valid ISO 8601 date-time`, param)
  return t
}

/**
 * How many raw samples of a device lie in [from, to]. Wide ranges take whole hours from the
 * hourly tier's sample counts and count raw rows only at the two ragged ends, so the cost does
 * not grow with the range. The tier covers only what raw still holds (the range starts at the
 * oldest raw sample), so both count the same rows.
 */
function* countSamples(kind: MetricKind, seq: number, from: number, to: number): Steps<number> {
  const oldest = yield* read((s) => s.oldestTs(kind, seq))
  if (oldest === null) return 0
  const a = Math.max(from, oldest)
  if (a > to) return 0
  const s = Math.ceil(a / HOUR_MS) * HOUR_MS
  const done = yield* read((r) => r.doneUntil(kind))
  const e = Math.min(Math.floor((to + 1) / HOUR_MS) * HOUR_MS, done['1h'])
  if (e - s < 2 * HOUR_MS) return yield* read((r) => r.count(kind, seq, a, to))
  const head = yield* read((r) => r.count(kind, seq, a, s - 1))
  const tail = yield* read((r) => r.count(kind, seq, e, to))
  // the hours of late samples not rolled up yet (a replay) are counted from the samples: the
  // hourly tier does not hold them until the rollup job's next run
  const late = yield* read((r) => r.lateSpan(kind))
  if (!late || late.to < s || late.from >= e) return head + (yield* read((r) => r.hourlyCount(kind, seq, s, e))) + tail
  const ls = Math.max(s, Math.floor(late.from / HOUR_MS) * HOUR_MS)
  const le = Math.min(e, Math.floor(late.to / HOUR_MS) * HOUR_MS + HOUR_MS)
  const before = ls > s ? yield* read((r) => r.hourlyCount(kind, seq, s, ls)) : 0
  const lateHours = yield* read((r) => r.count(kind, seq, ls, le - 1))
  const after = e > le ? yield* read((r) => r.hourlyCount(kind, seq, le, e)) : 0
  return head + before + lateHours + after + tail
}

/**
 * Reused for every history answer: written synchronously, then lent to the answer or taken as
 * its own copy. It keeps the size of the largest page asked for (limit ≤ 1000: about 1 MB).
 */
const historyOut = new JsonBytes()
const ITEMS = JsonBytes.constant('{"items":[')
const LIMIT = JsonBytes.constant('],"limit":')
const OFFSET = JsonBytes.constant(',"offset":')
const TOTAL = JsonBytes.constant(',"total":')

/**
 * Stored samples, newest first, within raw retention: the page as the bytes of its JSON,
 * written straight from the stored rows. The nested parts are spliced in as stored, never
 * parsed and re-encoded, and the page is not built as objects or strings first (see JsonBytes
 * for why).
 */
export function historyJson(deps: MetricsDeps, clientId: string, kind: MetricKind, deviceId: string, q: HistoryQuery): Promise<Uint8Array> {
  // its own copy (a Buffer's slice would be a view)
  return historyAnswer(deps, clientId, kind, deviceId, q, (json) => new Uint8Array(json))
}

/**
 * The same page handed to `answer` as a view of the shared buffer, valid only until `answer`
 * returns: for an answer that copies it at once (a Response copies its body when made, outside
 * the JS heap). The page's own copy on the heap (~270 KB for the real sample) is then not made.
 */
export async function historyAnswer<R>(
  deps: MetricsDeps,
  clientId: string,
  kind: MetricKind,
  deviceId: string,
  q: HistoryQuery,
  answer: (json: Uint8Array) => R,
): Promise<R> {
  const { device, from, to } = await historyWindow(deps, clientId, deviceId, q)
  const rows = await deps.reads.page(kind, device.seq, from, to, q.limit, q.offset, true)
  const total = await stepsAwait(countSamples(kind, device.seq, from, to), deps.reads)
  // written and answered at once, after the reads: the shared buffer is never held across an await
  const out = writePage(historyOut.reset().bytes(ITEMS), kind, rows, device.id)
  return answer(out.bytes(LIMIT).integer(q.limit).bytes(OFFSET).integer(q.offset).bytes(TOTAL).integer(total).byte(CLOSE_BRACE).lend())
}

/** The caller's device and the query's time range (inclusive) of a history read. */
async function historyWindow(deps: MetricsDeps, clientId: string, deviceId: string, q: HistoryQuery) {
  const device = await deps.devices.ref(clientId, deviceId)
  const from = dateParam(q.start_date, 'start_date', 0)
  const to = dateParam(q.end_date, 'end_date', Number.MAX_SAFE_INTEGER)
  return { device, from, to }
}

/**
 * The newest sample as the bytes of its JSON: the very item a history page starts with, every
 * field the collector sent included, extra ones too. Handed to `answer` as a view of the shared
 * buffer, as historyAnswer does.
 */
export async function latestAnswer<R>(deps: MetricsDeps, clientId: string, kind: MetricKind, deviceId: string, answer: (json: Uint8Array) => R): Promise<R> {
  const device = await deps.devices.ref(clientId, deviceId)
  // the newest row by its own statement (a page's, bounded in time, sorts the device's newest hour first)
  const row = await deps.reads.latest(kind, device.seq)
  if (!row) throw new AppError('no_metrics', `This device has not sent ${kind} metrics yet`)
  return answer(writePage(historyOut.reset(), kind, [rowValues(kind, row)], device.id).lend())
}

/**
 * Avg/min/max/p95/last per numeric field over the last `hours`, for hardware and network.
 * Up to 1 h from raw samples (exact p95); longer windows from a rollup tier (1m up to 6 h,
 * 10m up to 48 h, else 1h) plus raw samples for the edges, where p95 is the p95 of the tier's
 * per-bucket averages (it smooths spikes shorter than a bucket; max still catches them).
 */
export function summarizeDevice(deps: MetricsDeps, clientId: string, deviceId: string, hours: number): MetricsSummary {
  const device = deps.devices.ref(clientId, deviceId)
  return stepsNow(summarySteps(device, deps.clock.now(), hours), deps.store)
}

/** The same summary on this hub's engine (the route's). */
export async function summaryOf(deps: MetricsDeps, clientId: string, deviceId: string, hours: number): Promise<MetricsSummary> {
  const device = await deps.devices.ref(clientId, deviceId)
  return stepsAwait(summarySteps(device, deps.clock.now(), hours), deps.reads)
}

function* summarySteps(device: MetricDevice, to: number, hours: number): Steps<MetricsSummary> {
  const from = to - hours * HOUR_MS
  const level = levelForHours(hours)
  // the window includes a sample taken at exactly `to`
  const hw = yield* summarizeKind('hardware', device.seq, from, to + 1, level, to)
  const net = yield* summarizeKind('network', device.seq, from, to + 1, level, to)
  return {
    device_id: device.id,
    hours,
    from: toIso(from),
    to: toIso(to),
    resolution: levelName(level),
    hardware: { samples: hw.samples, first_at: hw.first_at, last_at: hw.last_at, fields: hw.fields },
    network: {
      samples: net.samples,
      first_at: net.first_at,
      last_at: net.last_at,
      fields: net.fields,
      bytes_sent_delta: net.counters.bytes_sent_total ?? null,
      bytes_recv_delta: net.counters.bytes_recv_total ?? null,
    },
  }
}

/** Each device's newest sample of a kind as [seq, ts, ...hot values in FIELDS order]; devices without one are left out. */
export const latestValues = (deps: Pick<MetricsDeps, 'reads'>, kind: MetricKind, seqs: number[]) => deps.reads.latestOf(kind, seqs)

/**
 * For the operator's admin view: stored raw samples per kind (counted per device from the
 * hourly tier plus raw edges, so it stays cheap on big tables) and samples received in the
 * last hour, on this hub's engine.
 */
export async function metricsStats(deps: Pick<MetricsDeps, 'reads' | 'clock' | 'devices'>) {
  const reads = deps.reads
  const hourAgo = deps.clock.now() - HOUR_MS
  // awaited: the devices' seqs come from the devices' store, asynchronous on PostgreSQL
  const seqs = await deps.devices.seqs()
  const stored = async (kind: MetricKind) => {
    let sum = 0
    for (const seq of seqs) sum += await stepsAwait(countSamples(kind, seq, 0, Number.MAX_SAFE_INTEGER), reads)
    return sum
  }
  return {
    metric_rows_hardware: await stored('hardware'),
    metric_rows_network: await stored('network'),
    ingest_last_hour: (await reads.countSince('hardware', seqs, hourAgo)) + (await reads.countSince('network', seqs, hourAgo)),
  }
}
