import { t, type Static } from 'elysia'
import { Type } from '@sinclair/typebox'
import { SEMVER_PATTERN } from './versions.semver'

export const SHA256_PATTERN = '^[0-9A-Fa-f]{64}$'

const Platform = t.String({ minLength: 1, maxLength: 50, pattern: '^[A-Za-z0-9._-]+$' })

export const VersionCreate = t.Object({
  platform: Platform,
  version: t.String({ maxLength: 100, pattern: SEMVER_PATTERN }),
  build_number: t.Optional(t.Nullable(Type.Integer({ minimum: 0 }))),
  release_notes: t.Optional(t.Nullable(t.String({ maxLength: 20_000 }))),
  // http(s) only: collectors and the portal follow it, so javascript:, data:, file: and the like are refused
  download_url: t.Optional(t.Nullable(t.String({ format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#\\s]', maxLength: 2048 }))),
  sha256: t.Optional(
    t.Nullable(
      t.String({
        pattern: SHA256_PATTERN,
        description:
          "The executable's SHA-256 (64 hex characters). Collectors install only a version they can verify: without it, the hub computes it when download_url is its own /download/vigil-linux-<arch>; otherwise the version is listed but never installed automatically (auto_install false).",
      }),
    ),
  ),
  is_mandatory: t.Optional(t.Boolean({ default: false })),
})
export type VersionCreate = Static<typeof VersionCreate>

export const VersionResponse = t.Object({
  id: t.String(),
  platform: t.String(),
  version: t.String(),
  build_number: t.Nullable(Type.Integer()),
  release_notes: t.Nullable(t.String()),
  download_url: t.Nullable(t.String()),
  sha256: t.Nullable(t.String()),
  is_mandatory: t.Boolean(),
  auto_install: t.Boolean({
    description:
      'Whether collectors install this version by themselves: it has a download_url and a sha256. A version without a checksum is listed, never installed.',
  }),
  created_at: t.String({ format: 'date-time' }),
})
export type VersionResponse = Static<typeof VersionResponse>

export const PlatformParams = t.Object({ platform: Platform })

/** The operator's list: newest publication first, optionally of one platform. */
export const VersionsQuery = t.Object({
  platform: t.Optional(Platform),
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
  offset: Type.Integer({ minimum: 0, default: 0 }),
})
export type VersionsQuery = Static<typeof VersionsQuery>

export const VersionList = t.Object({
  items: t.Array(VersionResponse),
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
})
