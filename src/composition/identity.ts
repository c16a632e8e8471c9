import type { Database } from 'bun:sqlite'
import type { AppDeps } from '../context'
import { listenerExposed } from '../config'
import { integrityScan } from '../db/integrity'
import type { Clock } from '../lib/clock'
import { tierOf, type Plan } from '../modules/billing/billing.catalog'
import { clientLimits } from '../modules/clients/clients.limits'
import { createClientWithOwner, type ClientsDeps } from '../modules/clients/clients.service'
import { createClientsStore, sqliteClients } from '../modules/clients/clients.store'
import { actingClient, memberRole, membershipsOf } from '../modules/clients/members.service'
import { createMembersStore, sqliteMembers } from '../modules/clients/members.store'
import { joinOnRegistration } from '../modules/clients/invitations.service'
import { setupTokenRequired, signupPolicyOf } from '../modules/users/users.signup'
import type { HealthDeps } from '../modules/health/health.service'
import { createHealthStore } from '../modules/health/health.store'
import { createHealthStorePg } from '../modules/health/health.store.pg'
import { onEngine } from './engine'
import { DEFAULT_PASSWORD_COST, passwords, type Passwords } from '../modules/users/users.passwords'
import { sessionRevocations } from '../modules/users/users.revocations'
import { currentRole, emailOfUser, userIdByEmail, type AccountDeps, type Tenancy, type UsersDeps } from '../modules/users/users.service'
import { createSessionsStore } from '../modules/users/users.sessions.store'
import { createUsersStore } from '../modules/users/users.store'
import { ACCOUNT_POLICY, ADDRESS_POLICY, loginThrottle } from '../modules/users/users.throttle'
import { accessTokens } from '../modules/users/users.tokens'
import type { VersionsDeps } from '../modules/versions/versions.service'
import { createVersionsStore } from '../modules/versions/versions.store'
import { hubExecutables } from '../modules/versions/versions.executables'
import type { Lookups } from './hooks'

/** The users domain's view of the clients domain. */
const tenancyOf = (clients: Pick<ClientsDeps, 'sqlite' | 'membersSqlite' | 'clock'>): Tenancy => ({
  createClientWithOwner: (opts) => createClientWithOwner(clients, opts),
  memberRole: (userId, clientId) => memberRole(clients, userId, clientId),
  membershipsOf: (userId) => membershipsOf(clients, userId),
  actingClient: (userId, preferred, home) => actingClient(clients, userId, preferred, home),
  joinOnRegistration: (token, email, userId) => joinOnRegistration(clients, token, email, userId),
})

/** The shell's account tasks (vigil admin …): accounts and their clients, without the service around them. */
export function accountTasks(sqlite: Database, clock: Clock, hashing: Passwords): AccountDeps {
  const clients = { sqlite: sqliteClients(sqlite), membersSqlite: sqliteMembers(sqlite), clock }
  return { store: createUsersStore(sqlite), sessions: createSessionsStore(sqlite), clock, passwords: hashing, tenancy: tenancyOf(clients) }
}

/** Users, clients (members, invitations), versions, health: who is who, and the tenant itself. */
export function wireIdentity(deps: AppDeps, plans: () => Plan[], lookups: Pick<Lookups, 'storageWarning'>) {
  const { config, clock, logger } = deps
  const sqlite = deps.db.sqlite
  const usersStore = createUsersStore(sqlite)
  const sessions = createSessionsStore(sqlite)
  const clientsSqlite = sqliteClients(sqlite)
  const membersSqlite = sqliteMembers(sqlite)
  const ownLimits = config.instance.mode === 'own' ? config.instance.own : null

  const clients: ClientsDeps = {
    store: createClientsStore(clientsSqlite),
    sqlite: clientsSqlite,
    members: createMembersStore(membersSqlite),
    membersSqlite,
    clock,
    accounts: {
      userIdByEmail: (email) => userIdByEmail({ store: usersStore }, email),
      emailOf: (userId) => emailOfUser({ store: usersStore }, userId),
    },
    limits: clientLimits(clientsSqlite, { rateLimitOf: (planType) => config.rateLimits[tierOf(plans(), planType)] }, ownLimits, deps.peers),
    ownLimits,
  }

  const users: UsersDeps = {
    store: usersStore,
    sessions,
    clock,
    logger,
    passwords: passwords(deps.passwordCost ?? DEFAULT_PASSWORD_COST),
    tenancy: tenancyOf(clients),
    tokens: accessTokens(
      deps.jwtSecret,
      clock,
      (userId) => currentRole({ store: usersStore }, userId),
      sessionRevocations(sessions, clock, undefined, deps.peers),
    ),
    refreshTtlSeconds: config.refreshTtlSeconds,
    throttle: { account: loginThrottle(clock, ACCOUNT_POLICY), address: loginThrottle(clock, ADDRESS_POLICY) },
    signup: { policy: signupPolicyOf(config.instance), setupToken: deps.setupToken ?? null, exposed: listenerExposed(config) },
  }

  const versions: VersionsDeps = { store: createVersionsStore(sqlite), clock, served: hubExecutables(config), siteUrl: config.siteUrl }

  const health: HealthDeps = {
    store: onEngine(deps, createHealthStore, (sql) => createHealthStorePg(sql, { now: () => clock.now(), url: config.database.url ?? '' })),
    storage: deps.db.health,
    scan: deps.pg ? null : integrityScan(sqlite),
    clock,
    logger,
    startedAt: clock.now(),
    instance: { mode: config.instance.mode, signup: signupPolicyOf(config.instance) },
    setupTokenRequired: (headers) => setupTokenRequired(users, headers),
    storageWarning: lookups.storageWarning.ask,
  }

  return { users, clients, versions, health }
}

export type IdentityModules = ReturnType<typeof wireIdentity>
