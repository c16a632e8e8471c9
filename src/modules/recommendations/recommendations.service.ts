import type { Clock } from '../../lib/clock'
import { AppError, notFound } from '../../http/errors'
import type { KeyPrincipal } from '../../http/principal'
import type { NewRecommendation, Recommendation, RecommendationIn } from './recommendations.model'
import type { RecommendationsStore } from './recommendations.store'

/** What this domain needs of the devices domain. */
export interface DeviceLookup {
  /** whether the client has this device (awaited: the devices domain may answer either way) */
  exists(clientId: string, deviceId: string): boolean | Promise<boolean>
  /** the id of the device a collector speaks for: as for metrics (bound key, named, the only one) */
  resolve(key: KeyPrincipal, named: string | null): string | Promise<string>
}

export interface RecommendationsDeps {
  store: RecommendationsStore
  devices: DeviceLookup
  clock: Clock
  /** told of each stored recommendation, after it is stored (the composition root publishes recommendation.created) */
  created: (clientId: string, recommendation: Recommendation) => void
}

/** An engine finding is not stored again for the same device while an equivalent one is younger than this. */
export const DEDUPE_WINDOW_MS = 24 * 3600_000

/**
 * A collector's recommendation, for the device a metric would go to: the key's bound device,
 * else the one named (body device_id or x-device-id), else the client's only device; else 422
 * device_required, so that every recommendation can be read back by device.
 */
export async function createFromCollector(deps: RecommendationsDeps, key: KeyPrincipal, body: RecommendationIn, headerDevice: string | null = null) {
  const deviceId = await deps.devices.resolve(key, body.device_id ?? headerDevice)
  const stored = await deps.store.insert(
    key.clientId,
    {
      deviceId,
      recommendation: body.recommendation,
      category: body.category,
      severity: body.severity ?? 'info',
      source: 'collector',
      evidence: null,
      dedupeKey: null,
    },
    deps.clock.now(),
  )
  deps.created(key.clientId, stored)
  return stored
}

/** Stores engine findings, skipping those already stored for the device within the dedupe window. */
export async function storeFindings(deps: RecommendationsDeps, clientId: string, findings: NewRecommendation[]) {
  const now = deps.clock.now()
  const result = await deps.store.insertDeduplicated(clientId, findings, now, now - DEDUPE_WINDOW_MS)
  if (deps.created) for (const rec of result.stored) deps.created(clientId, rec)
  return result
}

async function requireDevice(deps: RecommendationsDeps, clientId: string, deviceId: string) {
  if (!(await deps.devices.exists(clientId, deviceId))) throw notFound('Device')
}

function parseBound(value: string | null | undefined, param: string, fallback: number): number {
  if (value === undefined || value === null) return fallback
  const ms = Date.parse(value)
  if (Number.isNaN(ms)) throw new AppError('invalid_parameter', `${param} is not a valid date-time`, param)
  return ms
}

export async function listForDevice(
  deps: RecommendationsDeps,
  clientId: string,
  deviceId: string,
  q: { limit: number; offset: number; start_date?: string | null; end_date?: string | null },
) {
  await requireDevice(deps, clientId, deviceId)
  const from = parseBound(q.start_date, 'start_date', 0)
  const to = parseBound(q.end_date, 'end_date', Number.MAX_SAFE_INTEGER)
  if (from > to) throw new AppError('invalid_parameter', 'start_date is after end_date', 'start_date')
  const { items, total } = await deps.store.page(clientId, deviceId, from, to, q.limit, q.offset)
  return { items, limit: q.limit, offset: q.offset, total }
}

export async function latestForDevice(deps: RecommendationsDeps, clientId: string, deviceId: string, limit: number) {
  await requireDevice(deps, clientId, deviceId)
  return { items: (await deps.store.page(clientId, deviceId, 0, Number.MAX_SAFE_INTEGER, limit, 0)).items }
}
