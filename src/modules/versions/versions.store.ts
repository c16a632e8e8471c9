import type { Database } from 'bun:sqlite'

export interface VersionRow {
  id: string
  platform: string
  version: string
  build_number: number | null
  release_notes: string | null
  download_url: string | null
  sha256: string | null
  is_mandatory: number
  created_at: number
}

const COLUMNS = 'id, platform, version, build_number, release_notes, download_url, sha256, is_mandatory, created_at'

/** The `collector_versions` table. */
export function createVersionsStore(sqlite: Database) {
  const insert = sqlite.query(`INSERT INTO collector_versions (${COLUMNS}, published_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
  const byId = sqlite.query<VersionRow, [string]>(`SELECT ${COLUMNS} FROM collector_versions WHERE id = ?`)
  const ofPlatform = sqlite.query<VersionRow, [string]>(`SELECT ${COLUMNS} FROM collector_versions WHERE platform = ?`)
  // newest first; an empty platform means every platform
  const page = sqlite.query<VersionRow, [string, string, number, number]>(
    `SELECT ${COLUMNS} FROM collector_versions WHERE (?1 = '' OR platform = ?2) ORDER BY created_at DESC, id DESC LIMIT ?3 OFFSET ?4`,
  )
  const count = sqlite.query<{ n: number }, [string, string]>("SELECT count(*) AS n FROM collector_versions WHERE (?1 = '' OR platform = ?2)")
  return {
    insert(r: VersionRow & { published_by: string | null }) {
      insert.run(r.id, r.platform, r.version, r.build_number, r.release_notes, r.download_url, r.sha256, r.is_mandatory, r.created_at, r.published_by)
    },
    byId: (id: string) => byId.get(id),
    ofPlatform: (platform: string) => ofPlatform.all(platform),
    page: (platform: string | null, limit: number, offset: number) => ({
      rows: page.all(platform ?? '', platform ?? '', limit, offset),
      total: count.get(platform ?? '', platform ?? '')!.n,
    }),
  }
}

export type VersionsStore = ReturnType<typeof createVersionsStore>
