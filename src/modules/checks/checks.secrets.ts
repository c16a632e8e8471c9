import { openSecret, sealSecret } from '../../lib/secret-box'
import type { CheckSettings } from './checks.model'
import { isSecretHeader, maskSettings, maskUrl } from './checks.settings'
import type { ChecksStore } from './checks.store'

/**
 * A check's third-party secrets at rest: its credential headers, its body and a URL whose query
 * carries a credential are sealed (AES-256-GCM, the instance's secret key, bound to the account
 * and the check) in `sealed`; the rest of the stored settings is what the API answers, those
 * values masked. Only where the probe runs (the hub's scheduler, an agent's definitions) are
 * they opened.
 */
interface Secrets {
  headers?: Record<string, string>
  body?: string
  url?: string
}

type Stored = CheckSettings & { sealed?: string }

const aad = (clientId: string, checkId: string) => `check:${clientId}:${checkId}`

/** the secret parts of settings, or null when there are none */
function secretsOf(s: CheckSettings): Secrets | null {
  const out: Secrets = {}
  const headers = Object.entries(s.headers ?? {}).filter(([k]) => isSecretHeader(k))
  if (headers.length) out.headers = Object.fromEntries(headers)
  if (s.body) out.body = s.body
  if (s.url && maskUrl(s.url) !== s.url) out.url = s.url
  return Object.keys(out).length ? out : null
}

/** The settings as stored: secrets sealed, their places masked. */
export function sealSettings(key: Uint8Array, clientId: string, checkId: string, s: CheckSettings): string {
  const secrets = secretsOf(s)
  if (!secrets) return JSON.stringify(s)
  const stored: Stored = { ...maskSettings(s), sealed: sealSecret(key, JSON.stringify(secrets), aad(clientId, checkId)) }
  return JSON.stringify(stored)
}

/**
 * The settings a probe runs with: the sealed secrets put back. A row stored before secrets were
 * sealed reads as it is; a seal that no longer opens (the secret key was replaced) leaves the
 * masked values, so the probe fails visibly rather than sending someone else's secret.
 */
export function openSettings(key: () => Uint8Array, clientId: string, checkId: string, settings: string): CheckSettings {
  const { sealed, ...rest } = JSON.parse(settings) as Stored
  if (!sealed) return rest
  const opened = openSecret(key(), sealed, aad(clientId, checkId))
  if (opened === null) return rest
  const secrets = JSON.parse(opened) as Secrets
  const out: CheckSettings = { ...rest }
  if (secrets.url) out.url = secrets.url
  if (secrets.body !== undefined) out.body = secrets.body
  if (secrets.headers) out.headers = { ...rest.headers, ...secrets.headers }
  return out
}

/** The settings as the API answers them, without opening anything. */
export function shownSettings(settings: string): CheckSettings {
  const { sealed: _, ...rest } = JSON.parse(settings) as Stored
  return maskSettings(rest)
}

/** Whether a stored row still holds its secrets in plain text (stored before they were sealed). */
export const needsSealing = (settings: string) => {
  const s = JSON.parse(settings) as Stored
  return !s.sealed && secretsOf(s) !== null
}

/**
 * Start-up step: checks saved before their secrets were sealed get them sealed now, once (a
 * sealed row is left as it is). Returns how many rows were sealed.
 */
export async function sealPlainSecrets(checks: Pick<ChecksStore, 'all' | 'update'>, key: () => Uint8Array): Promise<number> {
  let n = 0
  for (const row of await checks.all()) {
    if (!needsSealing(row.settings)) continue
    await checks.update(row.client_id, row.id, { settings: sealSettings(key(), row.client_id, row.id, JSON.parse(row.settings) as CheckSettings) })
    n++
  }
  return n
}
