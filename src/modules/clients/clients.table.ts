import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { users } from '../users/users.table'

/** A tenant. Plan, limits and subscription change only through billing or the operator. */
export const clients = sqliteTable('clients', {
  id: text('id').primaryKey(),
  name: text('name'),
  platform: text('platform'),
  planType: text('plan_type').notNull().default('free'),
  subscriptionStatus: text('subscription_status').notNull().default('none'),
  maxDevices: integer('max_devices').notNull().default(1),
  maxUsers: integer('max_users').notNull().default(50),
  /**
   * The operator's hand-set limits. While set they win over the plan's: billing writes
   * max_devices/max_users as override ?? plan limit, so a tenant's checkout or sync cannot undo them.
   */
  maxDevicesOverride: integer('max_devices_override'),
  maxUsersOverride: integer('max_users_override'),
  /** requests per minute; null means the plan's */
  rateLimit: integer('rate_limit'),
  billingEmail: text('billing_email'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
})

/** Membership of a user in a client: role owner | admin | member, status active | invited | disabled. */
export const members = sqliteTable(
  'members',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    userId: text('user_id').references(() => users.id, { onDelete: 'cascade' }),
    invitedEmail: text('invited_email'),
    role: text('role').notNull().default('member'),
    status: text('status').notNull().default('active'),
    /** SHA-256 of the invitation's one-time secret (shown once to the inviter); cleared when accepted */
    inviteTokenHash: text('invite_token_hash'),
    inviteExpiresAt: integer('invite_expires_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('members_client_user').on(t.clientId, t.userId),
    uniqueIndex('members_client_invited_email').on(t.clientId, t.invitedEmail),
    index('members_user').on(t.userId),
    uniqueIndex('members_invite_token_hash').on(t.inviteTokenHash),
  ],
)
