import { newId } from '../../src/lib/ids'
import type { TestApp } from './app'

/** A device row made directly in the database (the devices module has its own endpoint tests). */
export function insertDevice(t: TestApp, clientId: string, opts: { hostname?: string; lastSeenAt?: number | null; createdAt?: number } = {}) {
  const id = newId('dev')
  const now = opts.createdAt ?? t.clock.now()
  t.db.sqlite.run(
    'INSERT INTO devices (id, client_id, fingerprint, hostname, os, os_version, arch, created_at, updated_at, last_seen_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    [id, clientId, `fp-${id}`, opts.hostname ?? 'web-1', 'linux', '6.8', 'x86_64', now, now, opts.lastSeenAt === undefined ? t.clock.now() : opts.lastSeenAt],
  )
  t.modules.devices.directory.forget(clientId) // the store caches each client's "only device"
  return id
}

/** `insertDevice` where the app keeps its devices: its PostgreSQL database when it runs on one, else the SQLite file. */
export async function insertDeviceOn(t: TestApp, clientId: string, opts: Parameters<typeof insertDevice>[2] = {}) {
  const pg = t.ctx.pg
  if (!pg) return insertDevice(t, clientId, opts)
  const id = newId('dev')
  const now = opts.createdAt ?? t.clock.now()
  const lastSeen = opts.lastSeenAt === undefined ? t.clock.now() : opts.lastSeenAt
  await pg`INSERT INTO devices (id, client_id, fingerprint, hostname, os, os_version, arch, created_at, updated_at, last_seen_at)
    VALUES (${id}, ${clientId}, ${`fp-${id}`}, ${opts.hostname ?? 'web-1'}, 'linux', '6.8', 'x86_64', ${now}, ${now}, ${lastSeen})`
  // the hub's copy of the devices reads it, as it would a device another hub made
  await t.modules.devices.directory.known?.(clientId, id)
  return id
}
