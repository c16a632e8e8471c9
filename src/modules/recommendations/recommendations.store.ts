import type { Database } from 'bun:sqlite'
import { newId } from '../../lib/ids'
import { toIso } from '../../lib/clock'
import type { NewRecommendation, Recommendation, Severity } from './recommendations.model'

export interface RecommendationRow {
  id: string
  client_id: string
  device_id: string | null
  recommendation: string
  category: string
  severity: string
  source: string
  evidence: string | null
  created_at: number
}

export const RECOMMENDATION_COLUMNS = 'id, client_id, device_id, recommendation, category, severity, source, evidence, created_at'

export const toRecommendation = (r: RecommendationRow): Recommendation => ({
  id: r.id,
  client_id: r.client_id,
  device_id: r.device_id,
  recommendation: r.recommendation,
  category: r.category,
  severity: r.severity as Severity,
  source: r.source,
  evidence: r.evidence ? (JSON.parse(r.evidence) as Record<string, unknown>) : null,
  created_at: toIso(r.created_at),
})

/** The row a new recommendation is stored as (its id made here, on either engine). */
export const newRow = (clientId: string, rec: NewRecommendation, now: number): RecommendationRow & { dedupe_key: string | null } => ({
  id: newId('rec'),
  client_id: clientId,
  device_id: rec.deviceId,
  recommendation: rec.recommendation,
  category: rec.category,
  severity: rec.severity,
  source: rec.source,
  evidence: rec.evidence ? JSON.stringify(rec.evidence) : null,
  created_at: now,
  dedupe_key: rec.dedupeKey,
})

/**
 * The recommendations table, on either engine (this file: SQLite; recommendations.store.pg.ts:
 * PostgreSQL). Every read and write filters by client_id.
 */
export interface RecommendationsStore {
  insert(clientId: string, rec: NewRecommendation, now: number): Promise<Recommendation>
  /**
   * Stores the findings whose dedupe key was not stored for the same device since `since`, in
   * the order given. One transaction that no other deduplicated insert of the client interleaves
   * with, so two overlapping runs (on one hub or two) cannot both store the same finding.
   */
  insertDeduplicated(clientId: string, recs: NewRecommendation[], now: number, since: number): Promise<{ stored: Recommendation[]; skipped: number }>
  /** a device's recommendations created within [from, to], newest first (ties by id, descending), with their total */
  page(clientId: string, deviceId: string, from: number, to: number, limit: number, offset: number): Promise<{ items: Recommendation[]; total: number }>
}

export function createRecommendationsStore(sqlite: Database): RecommendationsStore {
  const insert = sqlite.query(`INSERT INTO recommendations (${RECOMMENDATION_COLUMNS}, dedupe_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
  const recentDuplicate = sqlite.query<{ id: string }, [string, string | null, string, number]>(
    'SELECT id FROM recommendations WHERE client_id = ? AND device_id IS ? AND dedupe_key = ? AND created_at >= ? LIMIT 1',
  )
  const page = sqlite.query<RecommendationRow, [string, string, number, number, number, number]>(
    `SELECT ${RECOMMENDATION_COLUMNS} FROM recommendations WHERE client_id = ? AND device_id = ? AND created_at >= ? AND created_at <= ?
     ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
  )
  const count = sqlite.query<{ n: number }, [string, string, number, number]>(
    'SELECT COUNT(*) AS n FROM recommendations WHERE client_id = ? AND device_id = ? AND created_at >= ? AND created_at <= ?',
  )

  const insertOne = (clientId: string, rec: NewRecommendation, now: number): Recommendation => {
    const r = newRow(clientId, rec, now)
    insert.run(r.id, r.client_id, r.device_id, r.recommendation, r.category, r.severity, r.source, r.evidence, r.created_at, r.dedupe_key)
    return toRecommendation(r)
  }
  // IMMEDIATE: the duplicate check and the insert see no other writer in between
  const dedupe = sqlite.transaction((clientId: string, recs: NewRecommendation[], now: number, since: number) => {
    const stored: Recommendation[] = []
    let skipped = 0
    for (const rec of recs) {
      if (rec.dedupeKey && recentDuplicate.get(clientId, rec.deviceId, rec.dedupeKey, since)) {
        skipped++
        continue
      }
      stored.push(insertOne(clientId, rec, now))
    }
    return { stored, skipped }
  })

  return {
    insert: async (clientId, rec, now) => insertOne(clientId, rec, now),
    insertDeduplicated: async (clientId, recs, now, since) => dedupe.immediate(clientId, recs, now, since),
    page: async (clientId, deviceId, from, to, limit, offset) => ({
      items: page.all(clientId, deviceId, from, to, limit, offset).map(toRecommendation),
      total: count.get(clientId, deviceId, from, to)!.n,
    }),
  }
}
