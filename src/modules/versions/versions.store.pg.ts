import type { SQL } from 'bun'
import { type Raw, numOrNull } from '../../db/pg/rows'
import type { VersionRow, VersionsStore } from './versions.store'

const row = (r: Raw): VersionRow => ({
  id: r.id as string,
  platform: r.platform as string,
  version: r.version as string,
  build_number: numOrNull(r.build_number),
  release_notes: (r.release_notes as string | null) ?? null,
  download_url: (r.download_url as string | null) ?? null,
  sha256: (r.sha256 as string | null) ?? null,
  // boolean in PostgreSQL, 1/0 as SQLite stores it
  is_mandatory: r.is_mandatory ? 1 : 0,
  created_at: Number(r.created_at),
})

/** The collector_versions table on PostgreSQL: the same answers as the SQLite store (versions.store.contract.test.ts). */
export function createVersionsStorePg(sql: SQL): VersionsStore {
  return {
    async insert(r) {
      const rows: Raw[] = await sql`INSERT INTO collector_versions
          (id, platform, version, build_number, release_notes, download_url, sha256, is_mandatory, created_at, published_by)
        VALUES (${r.id}, ${r.platform}, ${r.version}, ${r.build_number}, ${r.release_notes}, ${r.download_url}, ${r.sha256},
          ${r.is_mandatory === 1}, ${r.created_at}, ${r.published_by})
        ON CONFLICT (platform, version) DO NOTHING RETURNING id`
      return rows.length > 0
    },
    async byId(id) {
      const [r]: Raw[] = await sql`SELECT id, platform, version, build_number, release_notes, download_url, sha256, is_mandatory, created_at
        FROM collector_versions WHERE id = ${id}`
      return r ? row(r) : null
    },
    async ofPlatform(platform) {
      const rows: Raw[] = await sql`SELECT id, platform, version, build_number, release_notes, download_url, sha256, is_mandatory, created_at
        FROM collector_versions WHERE platform = ${platform}`
      return rows.map(row)
    },
    async page(platform, limit, offset) {
      const p = platform ?? ''
      const rows: Raw[] = await sql`SELECT id, platform, version, build_number, release_notes, download_url, sha256, is_mandatory, created_at
        FROM collector_versions WHERE (${p} = '' OR platform = ${p}) ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`
      const [c]: { n: number }[] = await sql`SELECT count(*)::int AS n FROM collector_versions WHERE (${p} = '' OR platform = ${p})`
      return { rows: rows.map(row), total: c!.n }
    },
  }
}
