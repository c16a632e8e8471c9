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
  return {
    insert(r: VersionRow & { published_by: string | null }) {
      insert.run(r.id, r.platform, r.version, r.build_number, r.release_notes, r.download_url, r.sha256, r.is_mandatory, r.created_at, r.published_by)
    },
    byId: (id: string) => byId.get(id),
    ofPlatform: (platform: string) => ofPlatform.all(platform),
  }
}

export type VersionsStore = ReturnType<typeof createVersionsStore>
