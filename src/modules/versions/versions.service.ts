import { toIso, type Clock } from '../../lib/clock'
import { newId } from '../../lib/ids'
import { AppError, notFound } from '../../http/errors'
import { RequestValidationError } from '../../http/input'
import type { VersionCreate, VersionResponse, VersionsQuery } from './versions.model'
import { compareSemver } from './versions.semver'
import type { VersionRow, VersionsStore } from './versions.store'

export interface VersionsDeps {
  store: VersionsStore
  clock: Clock
}

const toResponse = (r: VersionRow): VersionResponse => ({
  id: r.id,
  platform: r.platform,
  version: r.version,
  build_number: r.build_number,
  release_notes: r.release_notes,
  download_url: r.download_url,
  sha256: r.sha256,
  is_mandatory: r.is_mandatory === 1,
  created_at: toIso(r.created_at),
})

/**
 * Publishes a release. A (platform, version) pair is published once: a second time is 409.
 * A download_url needs its sha256: collectors install only what they can verify. Rows from
 * before the checksum existed keep a null one, and collectors skip them.
 */
export function publishVersion(deps: VersionsDeps, input: VersionCreate, publishedBy: string | null): VersionResponse {
  if (input.download_url && !input.sha256)
    throw new RequestValidationError([{ loc: ['body', 'sha256'], msg: 'Required when download_url is set', type: 'missing' }])
  const platform = input.platform.toLowerCase()
  const version = input.version.replace(/^v/, '')
  const id = newId('ver')
  try {
    deps.store.insert({
      id,
      platform,
      version,
      build_number: input.build_number ?? null,
      release_notes: input.release_notes ?? null,
      download_url: input.download_url ?? null,
      sha256: input.sha256?.toLowerCase() ?? null,
      is_mandatory: input.is_mandatory ? 1 : 0,
      created_at: deps.clock.now(),
      published_by: publishedBy,
    })
  } catch (err) {
    if (String((err as Error).message).includes('UNIQUE')) throw new AppError('conflict', `Version ${version} of ${platform} is already published`, 'version')
    throw err
  }
  return toResponse(deps.store.byId(id)!)
}

/** The highest version of a platform by semantic-version precedence (not by publication date). */
export function latestVersion(deps: Pick<VersionsDeps, 'store'>, platform: string): VersionResponse {
  const rows = deps.store.ofPlatform(platform.toLowerCase())
  if (!rows.length) throw notFound(`Collector version for ${platform}`)
  const best = rows.reduce((a, b) => (compareSemver(b.version, a.version) > 0 ? b : a))
  return toResponse(best)
}

/** Every published version for the operator's page, newest publication first. */
export function listVersions(deps: Pick<VersionsDeps, 'store'>, query: VersionsQuery) {
  const { rows, total } = deps.store.page(query.platform?.toLowerCase() ?? null, query.limit, query.offset)
  return { items: rows.map(toResponse), total, limit: query.limit, offset: query.offset }
}
