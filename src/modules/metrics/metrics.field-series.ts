/**
 * One numeric field's hourly averages (a disk-fill trend, the AI's rules): read through SQLite's
 * synchronous store, on either engine, or for every field of a device at once.
 */
import { AppError } from '../../http/errors'
import { FIELDS, HOUR_MS, tierColumns, type MetricKind } from './metrics.fields'
import type { MetricsDeps } from './metrics.service'

type SeriesPoint = { t: number; avg: number }

/** the hours that have an average, oldest first */
const points = (rows: { t: number; avg: number | null }[]): SeriesPoint[] => rows.filter((r) => r.avg !== null).map((r) => ({ t: r.t, avg: r.avg! }))

/** Hourly averages of one numeric field (e.g. disk_used_percent for a disk-fill trend), oldest first, on this hub's engine. */
export async function fieldSeriesOf(deps: MetricsDeps, clientId: string, deviceId: string, field: string, hours: number): Promise<SeriesPoint[]> {
  const device = await deps.devices.ref(clientId, deviceId)
  const kind = fieldKind(field)
  const to = deps.clock.now()
  return points((await deps.reads.hourlyAverages(kind, field, device.seq, to - hours * HOUR_MS, to + 1))!)
}

function fieldKind(field: string): MetricKind {
  const kind: MetricKind | undefined = FIELDS.hardware.some((f) => f.name === field)
    ? 'hardware'
    : FIELDS.network.some((f) => f.name === field)
      ? 'network'
      : undefined
  if (!kind) throw new AppError('invalid_parameter', `Unknown metric field ${field}`, 'field')
  return kind
}

/**
 * Every numeric field's hourly averages over the last `hours`, read on this hub's engine in one
 * statement per kind (the hourly tier's rows), then answered like fieldSeries for any field and
 * window up to `hours`: for a reader that asks for many series of one device at once (the AI's rules).
 */
export async function fieldSeriesReader(
  deps: MetricsDeps,
  clientId: string,
  deviceId: string,
  hours: number,
): Promise<(field: string, hours: number) => SeriesPoint[]> {
  const device = await deps.devices.ref(clientId, deviceId)
  const to = deps.clock.now()
  const tiers = {
    hardware: await deps.reads.tierValues('hardware', '1h', device.seq, to - hours * HOUR_MS, to + 1),
    network: await deps.reads.tierValues('network', '1h', device.seq, to - hours * HOUR_MS, to + 1),
  }
  return (field, within) => {
    if (within > hours) throw new Error(`series over ${within} h asked of a reader of ${hours} h`)
    const kind = fieldKind(field)
    const cols = tierColumns(kind)
    const avg = 2 + cols.indexOf(`${field}_avg`)
    const n = 2 + cols.indexOf(`${field}_n`)
    const from = to - within * HOUR_MS
    const out: SeriesPoint[] = []
    for (const row of tiers[kind]) {
      const t = row[0] as number
      if (t >= from && (row[n] as number) > 0 && row[avg] !== null) out.push({ t, avg: row[avg] as number })
    }
    return out
  }
}
