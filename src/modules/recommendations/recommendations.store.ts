import type { Database } from 'bun:sqlite'
import { newId } from '../../lib/ids'
import { toIso } from '../../lib/clock'
import type { NewRecommendation, Recommendation, Severity } from './recommendations.model'

interface Row {
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

const COLUMNS = 'id, client_id, device_id, recommendation, category, severity, source, evidence, created_at'

export const toRecommendation = (r: Row): Recommendation => ({
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

export function createRecommendationsStore(sqlite: Database) {
  const insert = sqlite.query(`INSERT INTO recommendations (${COLUMNS}, dedupe_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
  const byId = sqlite.query<Row, [string]>(`SELECT ${COLUMNS} FROM recommendations WHERE id = ?`)
  const recentDuplicate = sqlite.query<{ id: string }, [string, string | null, string, number]>(
    'SELECT id FROM recommendations WHERE client_id = ? AND device_id IS ? AND dedupe_key = ? AND created_at >= ? LIMIT 1',
  )
  const page = sqlite.query<Row, [string, string, number, number, number, number]>(
    `SELECT ${COLUMNS} FROM recommendations WHERE client_id = ? AND device_id = ? AND created_at >= ? AND created_at <= ?
     ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
  )
  const count = sqlite.query<{ n: number }, [string, string, number, number]>(
    'SELECT COUNT(*) AS n FROM recommendations WHERE client_id = ? AND device_id = ? AND created_at >= ? AND created_at <= ?',
  )

  const insertOne = (clientId: string, rec: NewRecommendation, now: number): Recommendation => {
    const id = newId('rec')
    insert.run(
      id,
      clientId,
      rec.deviceId,
      rec.recommendation,
      rec.category,
      rec.severity,
      rec.source,
      rec.evidence ? JSON.stringify(rec.evidence) : null,
      now,
      rec.dedupeKey,
    )
    return toRecommendation(byId.get(id)!)
  }

  return {
    insert: (clientId: string, rec: NewRecommendation, now: number): Recommendation => insertOne(clientId, rec, now),

    /**
     * Stores the findings whose dedupe key was not stored for the same device since `since`.
     * One transaction, so two overlapping runs cannot both store the same finding.
     */
    insertDeduplicated(clientId: string, recs: NewRecommendation[], now: number, since: number) {
      return sqlite.transaction(() => {
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
      })()
    },

    page(clientId: string, deviceId: string, from: number, to: number, limit: number, offset: number) {
      return {
        items: page.all(clientId, deviceId, from, to, limit, offset).map(toRecommendation),
        total: count.get(clientId, deviceId, from, to)!.n,
      }
    },
  }
}

export type RecommendationsStore = ReturnType<typeof createRecommendationsStore>
