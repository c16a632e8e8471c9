import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { Logger } from '../../lib/logger'
import { fileSha256 } from './versions.executables'
import { compareSemver } from './versions.semver'
import { publishVersion, type VersionsDeps } from './versions.service'

const ARCHES = ['x64', 'arm64']

/** Where a collector downloads a hub-published executable: a path on the hub, resolved against the hub's URL by the agent. */
export const selfDownloadPath = (platform: string) => `/download/vigil-${platform}`

export interface SelfRelease {
  version: string
  /** the running executable */
  execPath: string
  arch: string
  /** where an operator may put the other architecture's executable of the same release */
  dataDir: string
}

/**
 * At start, the hub publishes itself as the collectors' version: its own executable for its
 * platform, and the other architecture's when `vigil-linux-<arch>` of the same release is in
 * DATA_DIR/agents, where the hub serves it from. Upgrading the hub then upgrades the fleet, within the window. Not mandatory; never
 * over a version an operator published (same version is kept, a higher one stays the latest).
 * Returns the platforms it published.
 */
export async function publishSelf(deps: VersionsDeps, release: SelfRelease, log: Logger): Promise<string[]> {
  const candidates = ARCHES.map((arch) => ({
    platform: `linux-${arch}`,
    file: arch === release.arch ? release.execPath : join(release.dataDir, 'agents', `vigil-linux-${arch}`),
  })).filter((c) => existsSync(c.file))
  const published: string[] = []
  for (const { platform, file } of candidates) {
    const existing = await deps.store.ofPlatform(platform)
    if (existing.some((r) => compareSemver(r.version, release.version) >= 0)) continue
    const sha256 = await fileSha256(file)
    await publishVersion(deps, { platform, version: release.version, download_url: selfDownloadPath(platform), sha256, is_mandatory: false }, null)
    published.push(platform)
  }
  if (published.length) log.info('collector version published from this hub', { version: release.version, platforms: published })
  return published
}
