import type { Database } from 'bun:sqlite'
import type { SQL } from 'bun'
import type { AppDeps } from '../context'
import { listenerExposed } from '../config.exposure'
import type { DbHandle } from '../db/connection'
import { integrityScan } from '../db/integrity'
import type { Clock } from '../lib/clock'
import type { Logger } from '../lib/logger'
import type { PeerLink } from '../lib/peer-link'
import { tierOf, type Plan } from '../modules/billing/billing.catalog'
import { clientLimits } from '../modules/clients/clients.limits'
import { cachedMemberRoles, directMemberRoles } from '../modules/clients/clients.roles'
import { newClientRow, type ClientsDeps } from '../modules/clients/clients.service'
import { createClientsStore, sqliteClients } from '../modules/clients/clients.store'
import { createClientsStorePg } from '../modules/clients/clients.store.pg'
import { actingClient, memberRole, membershipsOf } from '../modules/clients/members.service'
import { createMembersStore, sqliteMembers } from '../modules/clients/members.store'
import { createMembersStorePg } from '../modules/clients/members.store.pg'
import { invitationJoin } from '../modules/clients/invitations.service'
import { setupTokenRequiredOf, signupPolicyOf } from '../modules/users/users.signup'
import type { HealthDeps } from '../modules/health/health.service'
import { createHealthStore } from '../modules/health/health.store'
import { createAccountsStore } from '../modules/users/users.accounts.store'
import { createAccountsStorePg } from '../modules/users/users.accounts.store.pg'
import { cachedDirectory, directDirectory, type UsersDirectory } from '../modules/users/users.directory'
import { createHealthStorePg } from '../modules/health/health.store.pg'
import { DEFAULT_PASSWORD_COST, passwords, type Passwords } from '../modules/users/users.passwords'
import { sessionRevocations } from '../modules/users/users.revocations'
import { emailOfUser, userIdByEmail, type AccountDeps, type Tenancy, type UsersDeps } from '../modules/users/users.service'
import { createSessionsStore } from '../modules/users/users.sessions.store'
import { createSessionsStorePg } from '../modules/users/users.sessions.store.pg'
import { createUsersStore, sqliteUsers } from '../modules/users/users.store'
import { createUsersStorePg } from '../modules/users/users.store.pg'
import { setupTokenHashOf } from '../modules/users/users.setup-token'
import { selectLoginThrottles } from '../modules/users/users.throttle.select'
import { systemTimers } from '../lib/timers'
import { accessTokens } from '../modules/users/users.tokens'
import type { VersionsDeps } from '../modules/versions/versions.service'
import { createVersionsStore } from '../modules/versions/versions.store'
import { createVersionsStorePg } from '../modules/versions/versions.store.pg'
import { hubExecutables } from '../modules/versions/versions.executables'
import { onEngine } from './engine'
import type { Lookups } from './hooks'

/** a client's row as the rate limit reads it: at once from SQLite's statement, awaited from PostgreSQL */
type ClientRows = Parameters<typeof clientLimits>[0]

/** Where the identity stores live: the hub's PostgreSQL when it has one, else its SQLite file. */
type Engine = { db: Pick<DbHandle, 'sqlite'>; pg?: SQL | null }

/** The users domain's view of the clients domain. */
const tenancyOf = (clients: Pick<ClientsDeps, 'members' | 'roles'>): Tenancy => ({
  newClient: newClientRow,
  invitationJoin,
  memberRole: async (userId, clientId) => memberRole(clients, userId, clientId),
  membershipsOf: (userId) => membershipsOf(clients, userId),
  actingClient: (userId, preferred, home) => actingClient(clients, userId, preferred, home),
})

/** The account and membership stores on the engine: what the service and the shell's tasks share. */
function identityStores(on: Engine) {
  return {
    users: onEngine(on, (db) => createUsersStore(sqliteUsers(db)), createUsersStorePg),
    accounts: onEngine(on, createAccountsStore, createAccountsStorePg),
    sessions: onEngine(on, createSessionsStore, createSessionsStorePg),
    clients: onEngine(on, (db) => createClientsStore(sqliteClients(db)), createClientsStorePg),
    members: onEngine(on, (db) => createMembersStore(sqliteMembers(db)), createMembersStorePg),
  }
}

/**
 * What the hub reads of identity on every request: on SQLite each read is a statement answered at
 * once (no cache, as before); on PostgreSQL each hub caches what it read, dropped across hubs
 * through `peers` on every change (clients.roles.ts, users.directory.ts).
 */
function perRequestReads(on: Engine, stores: ReturnType<typeof identityStores>, clock: Clock, logger: Logger, peers?: PeerLink) {
  const sqliteReads = (db: Database) => {
    const users = sqliteUsers(db)
    const members = sqliteMembers(db)
    return {
      roles: directMemberRoles(members.activeRole),
      directory: directDirectory({
        roleOf: users.roleOf,
        emailOf: (userId) => users.byId(userId)?.email ?? null,
        isOperatorClient: (clientId) => users.operatorsHomedAt(clientId).some((userId) => members.activeRole(userId, clientId) !== null),
      }) as UsersDirectory,
      // the first read of a client's rate limit answers at once too
      clientRows: sqliteClients(db) as ClientRows,
      accountsExist: () => users.count() > 0,
    }
  }
  const pgReads = () => ({
    roles: cachedMemberRoles((userId, clientId) => stores.members.activeRole(userId, clientId), clock, peers),
    directory: cachedDirectory({ account: (userId) => stores.users.byId(userId), operatorClients: () => stores.users.operatorClients() }, clock, peers, (err) =>
      logger.warn('accounts not read', { error: (err as Error).message }),
    ),
    clientRows: stores.clients as ClientRows,
    accountsExist: accountsSeen(() => stores.users.count()),
  })
  return onEngine(on, sqliteReads, pgReads)
}

/**
 * Whether any account exists, synchronously, for /health: once one exists it stays so; until then
 * each ask starts a count in the background (one at a time) and answers from the last one.
 */
function accountsSeen(count: () => Promise<number>) {
  let seen = false
  let counting = false
  return () => {
    if (!seen && !counting) {
      counting = true
      count()
        .then((n) => {
          seen = n > 0
        })
        .catch(() => {})
        .finally(() => {
          counting = false
        })
    }
    return seen
  }
}

/** The shell's account tasks (vigil admin …): accounts and their clients, without the service around them, on the engine given. */
export function accountTasks(on: Engine, clock: Clock, hashing: Passwords): AccountDeps {
  const stores = identityStores(on)
  const roles = directMemberRoles(() => null)
  return {
    store: stores.users,
    accounts: stores.accounts,
    sessions: stores.sessions,
    clock,
    passwords: hashing,
    tenancy: tenancyOf({ members: stores.members, roles }),
  }
}

/** Users, clients (members, invitations), versions, health: who is who, and the tenant itself. */
export function wireIdentity(deps: AppDeps, plans: () => Plan[], lookups: Pick<Lookups, 'storageWarning'>) {
  const { config, clock, logger } = deps
  const on: Engine = { db: deps.db, pg: deps.pg }
  const stores = identityStores(on)
  const reads = perRequestReads(on, stores, clock, logger, deps.peers)
  const ownLimits = config.instance.mode === 'own' ? config.instance.own : null

  const clients: ClientsDeps = {
    store: stores.clients,
    members: stores.members,
    roles: reads.roles,
    clock,
    accounts: {
      userIdByEmail: (email) => userIdByEmail({ store: stores.users }, email),
      emailOf: (userId) => emailOfUser({ store: stores.users }, userId),
    },
    limits: clientLimits(reads.clientRows, { rateLimitOf: (planType) => config.rateLimits[tierOf(plans(), planType)] }, ownLimits, deps.peers),
    ownLimits,
  }

  const users: UsersDeps = {
    store: stores.users,
    accounts: stores.accounts,
    sessions: stores.sessions,
    clock,
    logger,
    passwords: passwords(deps.passwordCost ?? DEFAULT_PASSWORD_COST),
    tenancy: tenancyOf(clients),
    tokens: accessTokens(deps.jwtSecret, clock, (userId) => reads.directory.roleOf(userId), sessionRevocations(stores.sessions, clock, undefined, deps.peers)),
    refreshTtlSeconds: config.refreshTtlSeconds,
    throttle: selectLoginThrottles({
      pg: deps.pg ?? null,
      databaseUrl: config.database.url,
      redisUrl: config.redisUrl,
      clock,
      timers: deps.timers ?? systemTimers,
      logger,
    }),
    signup: { policy: signupPolicyOf(config.instance), setupTokenHash: setupTokenHashOf(deps.setupToken), exposed: listenerExposed(config) },
    directory: reads.directory,
  }

  const versions: VersionsDeps = {
    store: onEngine(on, createVersionsStore, createVersionsStorePg),
    clock,
    served: hubExecutables(config),
    siteUrl: config.siteUrl,
  }

  const sqlite = () => deps.db.sqlite
  const health: HealthDeps = {
    store: onEngine(deps, createHealthStore, (sql) => createHealthStorePg(sql, { now: () => clock.now(), url: config.database.url ?? '' })),
    storage: deps.db.health,
    scan: deps.pg ? null : integrityScan(sqlite()),
    clock,
    logger,
    startedAt: clock.now(),
    instance: { mode: config.instance.mode, signup: signupPolicyOf(config.instance) },
    setupTokenRequired: (headers) => setupTokenRequiredOf(users.signup, headers) && !reads.accountsExist(),
    storageWarning: lookups.storageWarning.ask,
  }

  return { users, clients, versions, health, directory: reads.directory }
}

export type IdentityModules = ReturnType<typeof wireIdentity>
