import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/** Portal users. `email` is stored lower-cased, so uniqueness is case-insensitive. */
export const users = sqliteTable('users', {
  id: text('id').primaryKey(),
  email: text('email').notNull().unique(),
  passwordHash: text('password_hash').notNull(),
  firstName: text('first_name'),
  lastName: text('last_name'),
  /** the client the user acts for (their home tenant) */
  clientId: text('client_id'),
  /** instance-wide role: admin (the operator) | user */
  role: text('role').notNull().default('user'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
})

/**
 * Refresh tokens, stored as SHA-256 only. Each login starts a family; a rotation spends one
 * token and issues the next in the same family, so reuse of a spent token revokes the family.
 */
export const refreshTokens = sqliteTable(
  'refresh_tokens',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    familyId: text('family_id').notNull(),
    /** the client this session acts for (a user may belong to several) */
    clientId: text('client_id'),
    tokenHash: text('token_hash').notNull().unique(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
    revokedAt: integer('revoked_at'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    index('refresh_tokens_family').on(t.familyId),
    index('refresh_tokens_user').on(t.userId),
    // the running service re-reads recent revocations every few seconds (users.revocations.ts)
    index('refresh_tokens_revoked').on(t.revokedAt),
  ],
)
