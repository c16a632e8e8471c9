import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Logger } from '../lib/logger'
import type { Identity } from './readers/identity'
import { type Fetch, type HubAnswer, type HubTarget, readAnswer } from './agent.sender'

interface DeviceState {
  hub: string
  device_id: string
  fingerprint: string
}

const readJson = <T>(path: string): T | null => {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T
  } catch {
    return null
  }
}

/**
 * The fingerprint the device registers with: the machine id, else one the agent made up on
 * its first run and kept in its state dir (a container without /etc/machine-id stays one device
 * across restarts as long as its state dir persists).
 */
export function fingerprintOf(identity: Identity, stateDir: string): string {
  if (identity.fingerprint) return identity.fingerprint
  const path = join(stateDir, 'fingerprint')
  try {
    const kept = readFileSync(path, 'utf8').trim()
    if (kept) return kept
  } catch {
    // first run
  }
  const made = crypto.randomUUID()
  writeFileSync(path, `${made}\n`, { mode: 0o600 })
  return made
}

/** What registration came to: the device id; or the hub refused the key (401, 403); or try again later. */
export type Registration = { id: string } | { refused: HubAnswer } | { retry: HubAnswer }

/**
 * The device id this agent reports as: remembered in the state dir (device.json, 0600) once
 * the hub registered it, for that hub and fingerprint; else registered now. Registration is
 * idempotent per fingerprint on the hub, so a lost state dir finds the same device again, and
 * a deleted device is registered anew (see forgetDevice).
 */
export async function ensureDevice(target: HubTarget, identity: Identity, stateDir: string, deps: { fetch: Fetch; log: Logger }): Promise<Registration> {
  const path = join(stateDir, 'device.json')
  const fingerprint = fingerprintOf(identity, stateDir)
  const kept = readJson<DeviceState>(path)
  if (kept && kept.hub === target.hub && kept.fingerprint === fingerprint && kept.device_id) return { id: kept.device_id }
  let res: Response
  try {
    res = await deps.fetch(`${target.hub}/v1/clients/me/devices`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': target.key },
      body: JSON.stringify({ hostname: identity.hostname, os: identity.os, os_version: identity.os_version, arch: identity.arch, fingerprint }),
      signal: AbortSignal.timeout(10_000),
    })
  } catch (err) {
    deps.log.debug('agent: hub unreachable for registration', { error: (err as Error).message })
    return { retry: { status: null, message: (err as Error).message } }
  }
  if (!res.ok) {
    const answer = await readAnswer(res)
    if (res.status === 401 || res.status === 403) return { refused: answer }
    deps.log.warn('agent: the hub did not register this device; trying again later', { ...answer })
    return { retry: answer }
  }
  const deviceId = ((await res.json().catch(() => ({}))) as { device_id?: string }).device_id
  if (!deviceId) return { retry: { status: res.status, message: 'no device_id in the answer' } }
  const state: DeviceState = { hub: target.hub, device_id: deviceId, fingerprint }
  writeFileSync(path, `${JSON.stringify(state)}\n`, { mode: 0o600 })
  deps.log.info('agent: device registered', { device_id: deviceId, hostname: identity.hostname })
  return { id: deviceId }
}

/** Forgets the remembered device (the hub deleted it): the next ensureDevice registers this machine again. */
export const forgetDevice = (stateDir: string) => rmSync(join(stateDir, 'device.json'), { force: true })
