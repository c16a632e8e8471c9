import { AppError } from '../../http/errors'
import type { KeyPrincipal } from '../../http/principal'
import type { BulkCreated, BulkMetricIn } from './metrics.model'
import type { SampleRow } from './metrics.rows'
import { batchRows, storeExtras, type MetricsDeps } from './metrics.service'

type ItemResult = BulkCreated['items'][number]

/**
 * A collector's replay: many batches of one device in one request, stored in one transaction
 * (all of the request's valid items or none). Each item answers for itself: stored, duplicate
 * (the hub already holds a sample of this device at this recorded_at: nothing written, so a
 * replay interrupted after the hub stored it costs nothing), or rejected with the reason (a
 * recorded_at in the future, an item with neither part), which the others do not share.
 */
export async function ingestBulk(deps: MetricsDeps, key: KeyPrincipal, body: BulkMetricIn, headerDevice: string | null): Promise<BulkCreated> {
  const device = deps.devices.resolve(key, headerDevice ?? body.device_id)
  const now = deps.clock.now()
  const samples: SampleRow[] = []
  /** per item: its samples' range in `samples`, or why it was refused */
  const spans: ({ from: number; to: number } | { reason: string })[] = []
  for (const item of body.items) {
    let rows: SampleRow[]
    try {
      rows = batchRows(item, now)
    } catch (err) {
      if (!(err instanceof AppError)) throw err
      spans.push({ reason: err.message })
      continue
    }
    if (!rows.length && !item.containers && !item.disks_smart) spans.push({ reason: 'the item has neither hardware nor network' })
    else {
      spans.push({ from: samples.length, to: samples.length + rows.length })
      for (const r of rows) samples.push(r)
    }
  }
  const { ids, duplicate } = samples.length ? await deps.writer.submit({ deviceSeq: device.seq, samples }) : { ids: [], duplicate: null }
  // the items' other parts, oldest first as sent; their modules recognise a replay by its time
  await storeExtras(
    deps,
    key.clientId,
    device,
    body.items.filter((_, i) => !('reason' in spans[i]!)),
  )
  // the results of checks the agent ran, stored before the answer: a failure fails the batch, which the agent replays
  for (const [i, item] of body.items.entries())
    if (!('reason' in spans[i]!) && item.check_results?.length) await deps.checkResults?.(key.clientId, device.id, item.check_results)
  const counts = { stored: 0, duplicates: 0, rejected: 0 }
  const items = body.items.map((item, i): ItemResult => {
    const span = spans[i]!
    if ('reason' in span) {
      counts.rejected++
      return { status: 'rejected', recorded_at: item.recorded_at, hardware: null, network: null, reason: span.reason }
    }
    const out: ItemResult = { status: 'duplicate', recorded_at: item.recorded_at, hardware: null, network: null, reason: null }
    for (let k = span.from; k < span.to; k++) {
      out[samples[k]!.kind] = { id: ids[k]! }
      if (!duplicate?.[k]) {
        const { kind, ts, values } = samples[k]!
        out.status = 'stored'
        deps.ingested?.(kind, 1)
        deps.stored?.({ clientId: key.clientId, deviceId: device.id, seq: device.seq, kind, ts, values: item[kind] as Record<string, unknown>, hot: values })
      }
    }
    // an item of containers or S.M.A.R.T. only: its modules have stored it (a repeat of a block they hold is kept once)
    if (span.from === span.to) out.status = 'stored'
    if (out.status === 'stored') counts.stored++
    else counts.duplicates++
    return out
  })
  return { device_id: device.id, ...counts, items }
}
