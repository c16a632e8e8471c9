import type { Database } from 'bun:sqlite'

export interface VersionRow {
  id: string
  platform: string
  version: string
  build_number: number | null
  release_notes: string | null
  download_url: string | null
  sha256: string | null
  /** 1 or 0, on either engine */
  is_mandatory: number
  created_at: number
}

export type NewVersion = VersionRow & { published_by: string | null }

/**
 * The `collector_versions` table, on either engine (this file: SQLite; versions.store.pg.ts:
 * PostgreSQL). Versions are the operator's, not a tenant's: no client filter.
 */
export interface VersionsStore {
  /** false when the (platform, version) pair is already published: nothing is written then */
  insert(r: NewVersion): Promise<boolean>
  byId(id: string): Promise<VersionRow | null>
  /** every version of a platform, in no particular order (the caller orders by semver) */
  ofPlatform(platform: string): Promise<VersionRow[]>
  /** newest publication first, ties by id; a null platform means every platform */
  page(platform: string | null, limit: number, offset: number): Promise<{ rows: VersionRow[]; total: number }>
}

const COLUMNS = 'id, platform, version, build_number, release_notes, download_url, sha256, is_mandatory, created_at'

/** The store on SQLite: its statements run when called (bun:sqlite is synchronous), the answers come as promises. */
export function createVersionsStore(sqlite: Database): VersionsStore {
  // the pair's unique index decides a second publication, so two at once cannot both land
  const insert = sqlite.query(
    `INSERT INTO collector_versions (${COLUMNS}, published_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (platform, version) DO NOTHING`,
  )
  const byId = sqlite.query<VersionRow, [string]>(`SELECT ${COLUMNS} FROM collector_versions WHERE id = ?`)
  const ofPlatform = sqlite.query<VersionRow, [string]>(`SELECT ${COLUMNS} FROM collector_versions WHERE platform = ?`)
  // an empty platform means every platform
  const page = sqlite.query<VersionRow, [string, string, number, number]>(
    `SELECT ${COLUMNS} FROM collector_versions WHERE (?1 = '' OR platform = ?2) ORDER BY created_at DESC, id DESC LIMIT ?3 OFFSET ?4`,
  )
  const count = sqlite.query<{ n: number }, [string, string]>("SELECT count(*) AS n FROM collector_versions WHERE (?1 = '' OR platform = ?2)")
  return {
    async insert(r) {
      const { changes } = insert.run(
        r.id,
        r.platform,
        r.version,
        r.build_number,
        r.release_notes,
        r.download_url,
        r.sha256,
        r.is_mandatory,
        r.created_at,
        r.published_by,
      )
      return changes > 0
    },
    byId: async (id) => byId.get(id),
    ofPlatform: async (platform) => ofPlatform.all(platform),
    page: async (platform, limit, offset) => ({
      rows: page.all(platform ?? '', platform ?? '', limit, offset),
      total: count.get(platform ?? '', platform ?? '')!.n,
    }),
  }
}
