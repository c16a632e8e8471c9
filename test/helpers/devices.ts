import { newId } from '../../src/lib/ids'
import type { TestApp } from './app'
import { numbered } from './postgres'

type DeviceOptions = { hostname?: string; lastSeenAt?: number | null; createdAt?: number }

/** a device's INSERT, with `?` placeholders, and its new id */
function deviceRow(t: TestApp, clientId: string, opts: DeviceOptions) {
  const id = newId('dev')
  const now = opts.createdAt ?? t.clock.now()
  return {
    id,
    text: 'INSERT INTO devices (id, client_id, fingerprint, hostname, os, os_version, arch, created_at, updated_at, last_seen_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    params: [
      id,
      clientId,
      `fp-${id}`,
      opts.hostname ?? 'web-1',
      'linux',
      '6.8',
      'x86_64',
      now,
      now,
      opts.lastSeenAt === undefined ? t.clock.now() : opts.lastSeenAt,
    ],
  }
}

/** A device row made directly in the database (the devices module has its own endpoint tests). */
export function insertDevice(t: TestApp, clientId: string, opts: DeviceOptions = {}) {
  const { id, text, params } = deviceRow(t, clientId, opts)
  t.db.sqlite.run(text, params)
  t.modules.devices.directory.forget(clientId) // the store caches each client's "only device"
  return id
}

/** `insertDevice` where the app keeps its devices: its PostgreSQL database when it runs on one, else the SQLite file. */
export async function insertDeviceOn(t: TestApp, clientId: string, opts: DeviceOptions = {}) {
  const pg = t.ctx.pg
  if (!pg) return insertDevice(t, clientId, opts)
  const { id, text, params } = deviceRow(t, clientId, opts)
  await pg.unsafe(numbered(text), params)
  // the hub's copy of the devices reads it, as it would a device another hub made
  await t.modules.devices.directory.known?.(clientId, id)
  return id
}
