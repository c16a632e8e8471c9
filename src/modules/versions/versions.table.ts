import { integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

/** Published collector releases, one row per (platform, version). Platform is stored lower-cased. */
export const collectorVersions = sqliteTable(
  'collector_versions',
  {
    id: text('id').primaryKey(),
    platform: text('platform').notNull(),
    version: text('version').notNull(),
    buildNumber: integer('build_number'),
    releaseNotes: text('release_notes'),
    downloadUrl: text('download_url'),
    // SHA-256 of the executable at download_url, lower-case hex; null on rows published before it existed
    sha256: text('sha256'),
    isMandatory: integer('is_mandatory', { mode: 'boolean' }).notNull().default(false),
    publishedBy: text('published_by'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('collector_versions_platform_version').on(t.platform, t.version)],
)
