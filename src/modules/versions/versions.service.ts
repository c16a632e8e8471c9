import type { Database } from 'bun:sqlite'
import { toIso, type Clock } from '../../lib/clock'
import { newId } from '../../lib/ids'
import { AppError, notFound } from '../../http/errors'
import type { VersionCreate, VersionResponse } from './versions.model'
import { compareSemver } from './versions.semver'

interface VersionRow {
  id: string
  platform: string
  version: string
  build_number: number | null
  release_notes: string | null
  download_url: string | null
  is_mandatory: number
  created_at: number
}

const COLUMNS = 'id, platform, version, build_number, release_notes, download_url, is_mandatory, created_at'

const toResponse = (r: VersionRow): VersionResponse => ({
  id: r.id,
  platform: r.platform,
  version: r.version,
  build_number: r.build_number,
  release_notes: r.release_notes,
  download_url: r.download_url,
  is_mandatory: r.is_mandatory === 1,
  created_at: toIso(r.created_at),
})

/** Publishes a release. A (platform, version) pair is published once: a second time is 409. */
export function publishVersion(deps: { sqlite: Database; clock: Clock }, input: VersionCreate, publishedBy: string): VersionResponse {
  const platform = input.platform.toLowerCase()
  const version = input.version.replace(/^v/, '')
  const id = newId('ver')
  try {
    deps.sqlite
      .query(`INSERT INTO collector_versions (${COLUMNS}, published_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(id, platform, version, input.build_number ?? null, input.release_notes ?? null, input.download_url ?? null, input.is_mandatory ? 1 : 0, deps.clock.now(), publishedBy)
  } catch (err) {
    if (String((err as Error).message).includes('UNIQUE')) throw new AppError('conflict', `Version ${version} of ${platform} is already published`, 'version')
    throw err
  }
  return toResponse(deps.sqlite.query<VersionRow, [string]>(`SELECT ${COLUMNS} FROM collector_versions WHERE id = ?`).get(id)!)
}

/** The highest version of a platform by semantic-version precedence (not by publication date). */
export function latestVersion(sqlite: Database, platform: string): VersionResponse {
  const rows = sqlite.query<VersionRow, [string]>(`SELECT ${COLUMNS} FROM collector_versions WHERE platform = ?`).all(platform.toLowerCase())
  if (!rows.length) throw notFound(`Collector version for ${platform}`)
  const best = rows.reduce((a, b) => (compareSemver(b.version, a.version) > 0 ? b : a))
  return toResponse(best)
}
