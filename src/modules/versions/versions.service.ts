import { toIso, type Clock } from '../../lib/clock'
import { newId } from '../../lib/ids'
import { AppError, notFound } from '../../http/errors'
import type { VersionCreate, VersionResponse, VersionsQuery } from './versions.model'
import { compareSemver } from './versions.semver'
import type { VersionRow, VersionsStore } from './versions.store'

export interface VersionsDeps {
  store: VersionsStore
  clock: Clock
  /** the checksum of the executable this hub serves for an architecture, null when it has none */
  served?: { sha256(arch: string): Promise<string | null> }
  /** VIGIL_SITE_URL: a download_url at this origin is the hub's own as well as one at the request's */
  siteUrl?: string
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
  auto_install: !!r.download_url && !!r.sha256,
  created_at: toIso(r.created_at),
})

/** The architecture of a download_url that is this hub's own download of a collector (GET /download/vigil-linux-<arch>), else null. */
function ownDownload(url: string, origins: string[]): string | null {
  let parsed: URL
  try {
    parsed = new URL(url, 'http://relative.invalid')
  } catch {
    return null
  }
  const own = parsed.origin === 'http://relative.invalid' || origins.includes(parsed.origin)
  const m = /^\/download\/vigil-linux-(x64|arm64)$/.exec(parsed.pathname)
  return own && m ? m[1]! : null
}

const originOf = (url: string | undefined) => {
  try {
    return url ? new URL(url).origin : null
  } catch {
    return null
  }
}

/**
 * Publishes a release. A (platform, version) pair is published once: a second time is 409.
 * Collectors install only what they can verify: a download_url without a sha256 gets the
 * checksum of the file when it is this hub's own download (/download/vigil-linux-<arch> at the
 * request's origin or VIGIL_SITE_URL); otherwise the version is kept without one, listed, and
 * never installed automatically (auto_install false).
 */
export async function publishVersion(deps: VersionsDeps, input: VersionCreate, publishedBy: string | null, requestOrigin?: string): Promise<VersionResponse> {
  let sha256 = input.sha256?.toLowerCase() ?? null
  if (input.download_url && !sha256) {
    const origins = [requestOrigin, originOf(deps.siteUrl)].filter((o): o is string => !!o)
    const arch = ownDownload(input.download_url, origins)
    if (arch) sha256 = (await deps.served?.sha256(arch)) ?? null
  }
  const platform = input.platform.toLowerCase()
  const version = input.version.replace(/^v/, '')
  const id = newId('ver')
  const inserted = await deps.store.insert({
    id,
    platform,
    version,
    build_number: input.build_number ?? null,
    release_notes: input.release_notes ?? null,
    download_url: input.download_url ?? null,
    sha256,
    is_mandatory: input.is_mandatory ? 1 : 0,
    created_at: deps.clock.now(),
    published_by: publishedBy,
  })
  if (!inserted) throw new AppError('conflict', `Version ${version} of ${platform} is already published`, 'version')
  return toResponse((await deps.store.byId(id))!)
}

/** The highest version of a platform by semantic-version precedence (not by publication date). */
export async function latestVersion(deps: Pick<VersionsDeps, 'store'>, platform: string): Promise<VersionResponse> {
  const rows = await deps.store.ofPlatform(platform.toLowerCase())
  if (!rows.length) throw notFound(`Collector version for ${platform}`)
  const best = rows.reduce((a, b) => (compareSemver(b.version, a.version) > 0 ? b : a))
  return toResponse(best)
}

/** Every published version for the operator's page, newest publication first. */
export async function listVersions(deps: Pick<VersionsDeps, 'store'>, query: VersionsQuery) {
  const { rows, total } = await deps.store.page(query.platform?.toLowerCase() ?? null, query.limit, query.offset)
  return { items: rows.map(toResponse), total, limit: query.limit, offset: query.offset }
}
