import { sha256Hex } from '../../src/lib/crypto'
import { newId } from '../../src/lib/ids'
import { generateApiKey, keyPrefixOf } from '../../src/modules/api-keys/api-keys.format'
import type { MemberRole, SystemRole } from '../../src/http/principal'
import type { Scope } from '../../src/http/auth'
import type { TestApp } from './app'
import { numbered } from './postgres'

const DEFAULT_SCOPES: Scope[] = ['metrics:write', 'recommendations:write']

/**
 * A fixture row written where the app keeps it: the app's PostgreSQL database when it runs on one
 * (test/helpers/app.pg.ts), else its SQLite file. `?` placeholders on both.
 */
async function write(t: TestApp, text: string, params: unknown[]) {
  const pg = t.ctx.pg
  if (!pg) {
    t.db.sqlite.run(text, params as never[])
    return
  }
  await pg.unsafe(numbered(text), params as never[])
}

/**
 * A tenant made directly in the database: a client, an owner user with an access token, and
 * an API key. For tests of other domains; the accounts endpoints have their own tests.
 */
export async function createTenant(
  t: TestApp,
  opts: { email?: string; role?: SystemRole; plan?: string; maxDevices?: number; maxUsers?: number; scopes?: Scope[] } = {},
) {
  const now = t.clock.now()
  const clientId = newId('cli')
  const userId = newId('usr')
  const email = opts.email ?? `${userId}@example.test`
  const role = opts.role ?? 'user'
  await write(
    t,
    'INSERT INTO clients (id, name, plan_type, subscription_status, max_devices, max_users, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    [clientId, `Tenant ${email}`, opts.plan ?? 'free', 'none', opts.maxDevices ?? 1, opts.maxUsers ?? 50, now, now],
  )
  await write(t, 'INSERT INTO users (id, email, password_hash, client_id, role, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
    userId,
    email,
    await Bun.password.hash('correct horse battery', { algorithm: 'argon2id', memoryCost: 4096, timeCost: 2 }),
    clientId,
    role,
    now,
    now,
  ])
  await write(t, "INSERT INTO members (id, client_id, user_id, role, status, created_at, updated_at) VALUES (?, ?, ?, 'owner', 'active', ?, ?)", [
    newId('mem'),
    clientId,
    userId,
    now,
    now,
  ])
  const token = await t.modules.users.tokens.sign({ userId, clientId, role })
  const apiKey = await createKeyOn(t, clientId, { scopes: opts.scopes })
  return {
    clientId,
    userId,
    email,
    token,
    apiKey: apiKey.key,
    keyId: apiKey.keyId,
    /** headers for a portal (JWT) request */
    userHeaders: { authorization: `Bearer ${token}` },
    /** headers for a collector (API key) request */
    keyHeaders: { 'x-api-key': apiKey.key },
  }
}

type KeyOptions = { scopes?: Scope[]; deviceId?: string; expiresAt?: number }

/** An API key written in the app's SQLite file, at once (tests on SQLite). */
export function createKey(t: TestApp, clientId: string, opts: KeyOptions = {}) {
  const { key, keyId, text, params } = keyRow(t, clientId, opts)
  t.db.sqlite.run(text, params as never[])
  return { key, keyId, headers: { 'x-api-key': key } }
}

/** An API key written where the app keeps its keys: PostgreSQL or SQLite. */
export async function createKeyOn(t: TestApp, clientId: string, opts: KeyOptions = {}) {
  const { key, keyId, text, params } = keyRow(t, clientId, opts)
  await write(t, text, params)
  return { key, keyId, headers: { 'x-api-key': key } }
}

function keyRow(t: TestApp, clientId: string, opts: KeyOptions) {
  const key = generateApiKey()
  const keyId = newId('key')
  return {
    key,
    keyId,
    text: 'INSERT INTO api_keys (id, client_id, name, key_prefix, key_hash, scopes, device_id, is_active, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, TRUE, ?, ?)',
    params: [
      keyId,
      clientId,
      'test key',
      keyPrefixOf(key),
      sha256Hex(key),
      JSON.stringify(opts.scopes ?? DEFAULT_SCOPES),
      opts.deviceId ?? null,
      t.clock.now(),
      opts.expiresAt ?? null,
    ] as unknown[],
  }
}

/** Adds a user to an existing client with the given member role. */
export async function addMember(t: TestApp, clientId: string, memberRole: MemberRole, opts: { role?: SystemRole } = {}) {
  const now = t.clock.now()
  const userId = newId('usr')
  await write(t, 'INSERT INTO users (id, email, password_hash, client_id, role, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
    userId,
    `${userId}@example.test`,
    'x',
    clientId,
    opts.role ?? 'user',
    now,
    now,
  ])
  await write(t, "INSERT INTO members (id, client_id, user_id, role, status, created_at, updated_at) VALUES (?, ?, ?, ?, 'active', ?, ?)", [
    newId('mem'),
    clientId,
    userId,
    memberRole,
    now,
    now,
  ])
  const token = await t.modules.users.tokens.sign({ userId, clientId, role: opts.role ?? 'user' })
  return { userId, token, headers: { authorization: `Bearer ${token}` } }
}
