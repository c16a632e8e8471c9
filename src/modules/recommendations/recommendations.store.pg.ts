import type { SQL } from 'bun'
import { type Raw, num } from '../../db/pg/rows'
import type { NewRecommendation } from './recommendations.model'
import { newRow, RECOMMENDATION_COLUMNS, type RecommendationRow, type RecommendationsStore, toRecommendation } from './recommendations.store'

const row = (r: Raw): RecommendationRow => ({
  id: r.id as string,
  client_id: r.client_id as string,
  device_id: (r.device_id as string | null) ?? null,
  recommendation: r.recommendation as string,
  category: r.category as string,
  severity: r.severity as string,
  source: r.source as string,
  evidence: (r.evidence as string | null) ?? null,
  created_at: num(r.created_at),
})

/**
 * The recommendations table on PostgreSQL: the same answers as the SQLite store
 * (recommendations.store.contract.test.ts). Ids are ordered by their bytes (COLLATE "C"), as SQLite orders them.
 */
export function createRecommendationsStorePg(sql: SQL): RecommendationsStore {
  const insertOne = async (tx: SQL, clientId: string, rec: NewRecommendation, now: number) => {
    const r = newRow(clientId, rec, now)
    await tx`INSERT INTO recommendations (id, client_id, device_id, recommendation, category, severity, source, evidence, created_at, dedupe_key)
      VALUES (${r.id}, ${r.client_id}, ${r.device_id}, ${r.recommendation}, ${r.category}, ${r.severity}, ${r.source}, ${r.evidence}, ${r.created_at}, ${r.dedupe_key})`
    return toRecommendation(r)
  }
  return {
    insert: (clientId, rec, now) => insertOne(sql, clientId, rec, now),
    insertDeduplicated(clientId, recs, now, since) {
      return sql.begin(async (tx) => {
        // the client's deduplicated inserts queue here (whichever hub runs them), so a duplicate in flight is seen
        await tx`SELECT pg_advisory_xact_lock(hashtextextended(${`vigil.recommendations.dedupe:${clientId}`}, 0))`
        const stored = []
        let skipped = 0
        for (const rec of recs) {
          if (rec.dedupeKey) {
            const [dup]: Raw[] = await tx`SELECT id FROM recommendations WHERE client_id = ${clientId} AND device_id IS NOT DISTINCT FROM ${rec.deviceId}
              AND dedupe_key = ${rec.dedupeKey} AND created_at >= ${since} LIMIT 1`
            if (dup) {
              skipped++
              continue
            }
          }
          stored.push(await insertOne(tx, clientId, rec, now))
        }
        return { stored, skipped }
      })
    },
    async page(clientId, deviceId, from, to, limit, offset) {
      const rows: Raw[] = await sql.unsafe(
        `SELECT ${RECOMMENDATION_COLUMNS} FROM recommendations WHERE client_id = $1 AND device_id = $2 AND created_at >= $3 AND created_at <= $4
         ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT $5 OFFSET $6`,
        [clientId, deviceId, from, to, limit, offset],
      )
      const [c]: { n: number }[] =
        await sql`SELECT count(*)::int AS n FROM recommendations WHERE client_id = ${clientId} AND device_id = ${deviceId} AND created_at >= ${from} AND created_at <= ${to}`
      return { items: rows.map(row).map(toRecommendation), total: c!.n }
    },
  }
}
