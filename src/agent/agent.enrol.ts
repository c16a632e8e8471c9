import { mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { DEFAULT_STATE_DIR } from './agent.config'
import { fingerprintOf } from './agent.device'
import { fetchPinnedCertificate, HUB_CERT_FILE, PinError, pinnedTls } from './agent.tls'
import { readIdentity } from './readers/identity'

export const ENROL_HELP = `Usage: vigil agent enrol --hub URL --token TOKEN [--pin sha256//…] [--state-dir DIR]

Spends a single-use enrolment token (POST /v1/enrolments on the hub gives one): registers this
machine as a device (the same device again when it was enrolled before) and keeps the API key
bound to it in STATE_DIR/key (0600) and the device in STATE_DIR/device.json.

  --hub URL         the hub, e.g. http://hub:8080
  --token TOKEN     the enrolment token (vet_…)
  --pin PIN         the hub's public-key pin, for a hub with a self-signed certificate
  --state-dir DIR   where the key and device are kept (${DEFAULT_STATE_DIR})`

interface EnrolOptions {
  hub: string
  token: string
  pin: string | null
  stateDir: string
}

function parse(args: string[], env: Record<string, string | undefined>): EnrolOptions | string {
  const values: Record<string, string> = {}
  for (let i = 0; i < args.length; i++) {
    const m = /^--(hub|token|pin|state-dir)(?:=(.*))?$/.exec(args[i]!)
    if (!m) return `unknown option "${args[i]}"; run "vigil agent enrol --help"`
    const value = m[2] ?? args[++i]
    if (value === undefined) return `--${m[1]} needs a value`
    values[m[1]!] = value
  }
  const hubRaw = values.hub ?? env.VIGIL_AGENT_HUB
  const token = values.token ?? env.VIGIL_ENROL_TOKEN
  if (!hubRaw || !token) return 'enrol needs --hub URL and --token TOKEN'
  let url: URL
  try {
    url = new URL(hubRaw)
  } catch {
    return `--hub must be an http(s) URL such as http://hub:8080, got "${hubRaw}"`
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `--hub must be an http(s) URL, got "${hubRaw}"`
  const pin = values.pin ?? null
  if (pin && url.protocol !== 'https:') return '--pin is for an https hub'
  const hub = url.origin + url.pathname.replace(/\/+$/, '')
  return { hub, token, pin, stateDir: values['state-dir'] || env.VIGIL_AGENT_STATE_DIR || DEFAULT_STATE_DIR }
}

/** Writes a file whole or not at all: a crash never leaves half a key. */
function writeAtomic(path: string, text: string, mode: number) {
  const tmp = `${path}.tmp`
  writeFileSync(tmp, text, { mode })
  renameSync(tmp, path)
}

/** `vigil agent enrol`: returns the exit code (0 enrolled, 1 refused or unreachable, 2 usage). */
export async function enrolCommand(args: string[], env: Record<string, string | undefined> = process.env, fetchImpl: typeof fetch = fetch): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(ENROL_HELP)
    return 0
  }
  const o = parse(args, env)
  if (typeof o === 'string') {
    console.error(`vigil: ${o}`)
    return 2
  }
  mkdirSync(o.stateDir, { recursive: true, mode: 0o700 })
  let tls: ReturnType<typeof pinnedTls> | undefined
  try {
    if (o.pin) {
      const cert = await fetchPinnedCertificate(o.hub, o.pin, fetchImpl)
      writeAtomic(join(o.stateDir, HUB_CERT_FILE), cert, 0o644)
      tls = pinnedTls(cert)
    }
  } catch (err) {
    console.error(`vigil: ${err instanceof PinError ? err.message : `cannot reach ${o.hub}: ${(err as Error).message}`}`)
    return 1
  }
  const identity = readIdentity(env.VIGIL_AGENT_ROOT || '/')
  const fingerprint = fingerprintOf(identity, o.stateDir)
  let res: Response
  try {
    res = await fetchImpl(`${o.hub}/v1/enrolments/redeem`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: o.token, hostname: identity.hostname, os: identity.os, os_version: identity.os_version, arch: identity.arch, fingerprint }),
      signal: AbortSignal.timeout(30_000),
      ...(tls ? { tls } : {}),
    })
  } catch (err) {
    console.error(`vigil: cannot reach ${o.hub}: ${(err as Error).message}`)
    return 1
  }
  const text = await res.text()
  let body: { device_id?: string; api_key?: string; error?: { message?: string } } = {}
  try {
    body = JSON.parse(text)
  } catch {
    // not JSON: reported below with the status
  }
  if (!res.ok || !body.api_key || !body.device_id) {
    console.error(`vigil: the hub refused the enrolment (HTTP ${res.status}): ${body.error?.message ?? text.slice(0, 300)}`)
    return 1
  }
  writeAtomic(join(o.stateDir, 'key'), `${body.api_key}\n`, 0o600)
  writeAtomic(join(o.stateDir, 'device.json'), `${JSON.stringify({ hub: o.hub, device_id: body.device_id, fingerprint })}\n`, 0o600)
  console.log(`enrolled ${identity.hostname} as device ${body.device_id}; key kept in ${join(o.stateDir, 'key')}`)
  return 0
}
