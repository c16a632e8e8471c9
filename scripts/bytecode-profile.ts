/**
 * Records which functions a run of the executable uses, for `bun build --bytecode-order`
 * (see scripts/build.ts). The run is the ordinary life of a fresh instance: start-up, then one
 * collector and one portal user through the public API, then `vigil agent` reporting to it for a
 * few samples. Bun lays the bytecode those functions need out together at the front of the
 * executable, so a start touches fewer of its pages. The two records are merged (mergeOrders):
 * without the agent's, its own functions were scattered among the ones no run uses and a
 * collector touched 1.6 MB more of the executable.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AGENT_RUNTIME_ENV } from '../src/agent/agent.install'
import { freePort, stop, waitReady } from './bench/proc'
import { fingerprintOf } from '../src/agent/agent.device'
import { readIdentity } from '../src/agent/readers/identity'
import { dnsServer, selfSignedCert } from '../test/helpers/check-servers'
import { sampleContainers, startFakeDocker } from '../test/fakes/docker/fake-docker'

const PASSWORD = 'profile run password'

/** Runs `bin` (built with --bytecode) through the workload and writes its profile to `outFile`. */
export async function recordBytecodeProfile(bin: string, outFile: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-profile-'))
  const port = freePort()
  const base = `http://127.0.0.1:${port}`
  const hubOut = join(dir, 'hub-order.txt')
  const agentOut = join(dir, 'agent-order.txt')
  const server = Bun.spawn([bin, 'serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', join(dir, 'data')], {
    env: { PATH: process.env.PATH ?? '', BUN_BYTECODE_ORDER_OUT: hubOut, VIGIL_LOG_LEVEL: 'warn' },
    stdout: 'ignore',
    stderr: 'inherit',
  })
  try {
    await waitReady(`${base}/health`, server)
    const { key, portal } = await useOnce(base)
    await collectorRun(bin, base, key, portal, join(dir, 'agent'), agentOut)
    // the shrink half a second after start-up, and the first checkpoint cycle
    await Bun.sleep(1_500)
  } finally {
    await stop(server) // the profile is written as the process exits
  }
  try {
    writeFileSync(outFile, mergeOrders(readFileSync(hubOut, 'utf8'), readFileSync(agentOut, 'utf8')))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * `vigil agent` as its systemd unit runs it, at a one-second interval, beside a (fake) Docker
 * engine and with a service check of each kind assigned to it: without them, the containers
 * reader's and the probes' functions were left out of the profile, scattered, and a collector
 * reading containers touched about 1.7 MB more of the executable. The checks' first runs are
 * spread over their 10 s interval, so the run lasts a little longer than that.
 */
async function collectorRun(bin: string, base: string, key: string, portal: Record<string, string>, stateDir: string, outFile: string): Promise<void> {
  const engine = startFakeDocker({ containers: sampleContainers() })
  const targets = await checkTargets()
  try {
    await assignChecks(base, key, portal, stateDir, targets.checks)
    const agent = Bun.spawn([bin, 'agent', '--hub', base, '--key', key, '--interval', '1', '--state-dir', stateDir, '--no-update', '--log-level', 'warn'], {
      env: { PATH: process.env.PATH ?? '', BUN_BYTECODE_ORDER_OUT: outFile, DOCKER_HOST: `unix://${engine.socketPath}`, ...AGENT_RUNTIME_ENV },
      stdout: 'ignore',
      stderr: 'inherit',
    })
    await Bun.sleep(targets.checks.length ? 11_500 : 3_500)
    await stop(agent)
  } finally {
    await engine.stop()
    targets.stop()
  }
}

/** Local targets for one check of each kind (no HTTPS nor TLS one without openssl to make a certificate). */
async function checkTargets(): Promise<{ checks: { kind: string; settings: Record<string, unknown> }[]; stop: () => void }> {
  const page = () => new Response('status: ok')
  const http = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: page })
  const tcp = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const dns = await dnsServer({ 'profile.test': { A: ['10.0.0.1'] } })
  let https: ReturnType<typeof Bun.serve> | null = null
  try {
    https = Bun.serve({ port: 0, hostname: '127.0.0.1', tls: selfSignedCert(30), fetch: page })
  } catch {
    // no openssl: the TLS probes stay out of the profile
  }
  const checks = [
    { kind: 'http', settings: { url: `http://127.0.0.1:${http.port}/`, keyword: 'ok' } },
    { kind: 'tcp', settings: { host: '127.0.0.1', port: tcp.port } },
    { kind: 'dns', settings: { name: 'profile.test', resolver: `127.0.0.1:${dns.port}`, expected: ['10.0.0.1'] } },
    { kind: 'ping', settings: { host: '127.0.0.1' } },
    ...(https
      ? [
          { kind: 'http', settings: { url: `https://127.0.0.1:${https.port}/`, verify_tls: false, cert_warn_days: 14 } },
          { kind: 'tls', settings: { host: '127.0.0.1', port: https.port, verify_tls: false } },
        ]
      : []),
  ]
  return {
    checks,
    stop() {
      http.stop(true)
      https?.stop(true)
      tcp.stop(true)
      dns.stop()
    },
  }
}

/** The checks, on the device the agent will register as (this machine, its state dir's fingerprint). */
async function assignChecks(
  base: string,
  key: string,
  portal: Record<string, string>,
  stateDir: string,
  checks: { kind: string; settings: Record<string, unknown> }[],
) {
  const identity = readIdentity('/')
  const res = await fetch(`${base}/v1/clients/me/devices`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({
      hostname: identity.hostname,
      os: identity.os,
      os_version: identity.os_version,
      arch: identity.arch,
      fingerprint: fingerprintOf(identity, stateDir),
    }),
  })
  if (!res.ok) throw new Error(`profile run: the agent's device was refused: ${res.status}`)
  const device = ((await res.json()) as { device_id: string }).device_id
  for (const [i, c] of checks.entries()) {
    const made = await fetch(`${base}/v1/checks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...portal },
      body: JSON.stringify({ name: `profile ${i}`, ...c, interval_s: 10, timeout_ms: 2000, run_on_hub: false, device_ids: [device] }),
    })
    if (!made.ok) throw new Error(`profile run: a ${c.kind} check was refused: ${made.status} ${await made.text()}`)
  }
}

/**
 * One record from the hub's and the collector's: first what both use (in the hub's order),
 * then what only the collector uses, then what only the hub uses. Each then touches one run of
 * pages: the collector the front, the hub the front and the back (the collector's own part in
 * between is small).
 */
export function mergeOrders(hub: string, agent: string): string {
  const [header, ...hubLines] = hub.trim().split('\n')
  const agentLines = agent.trim().split('\n').slice(1)
  const inAgent = new Set(agentLines)
  const inHub = new Set(hubLines)
  const both = hubLines.filter((l) => inAgent.has(l))
  const agentOnly = [...new Set(agentLines.filter((l) => !inHub.has(l)))]
  const hubOnly = hubLines.filter((l) => !inAgent.has(l))
  return `${[header, ...both, ...agentOnly, ...hubOnly].join('\n')}\n`
}

/** One operator and one collector, the way the README's walkthrough goes. */
async function useOnce(base: string): Promise<{ key: string; portal: Record<string, string> }> {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Record<string, string>> => {
    const res = await fetch(base + path, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    if (res.status >= 400) throw new Error(`profile run: ${method} ${path} answered ${res.status}: ${await res.text()}`)
    return res.status === 204 ? {} : ((await res.json()) as Record<string, string>)
  }
  await call('POST', '/v1/auth/register', { email: 'ops@example.test', password: PASSWORD, company: 'Profile' })
  const login = await call('POST', '/v1/auth/login', { email: 'ops@example.test', password: PASSWORD })
  const portal = { authorization: `Bearer ${login.access_token!}` }
  const key = await call('POST', '/v1/auth/api-keys', { name: 'profile' }, portal)
  const collector = { 'x-api-key': key.api_key! }
  const device = await call(
    'POST',
    '/v1/clients/me/devices',
    { hostname: 'profile', os: 'linux', os_version: '6.8', arch: 'arm64', fingerprint: 'fp-profile' },
    collector,
  )
  for (let i = 0; i < 20; i++) {
    await call(
      'POST',
      '/v1/metrics/batch',
      {
        hardware: { cpu_percent: 50 + i, ram_percent: 40, disk_partitions: [{ mountpoint: '/', percent: 50 }] },
        network: { latency_avg_ms: 3, packet_loss_percent: 0 },
      },
      collector,
    )
  }
  await call('GET', `/v1/metrics/hardware/${device.device_id}?limit=10`, undefined, portal)
  await call('GET', `/v1/metrics/summary/${device.device_id}?hours=24`, undefined, portal)
  await call('GET', '/v1/clients/me/devices', undefined, portal)
  return { key: key.api_key!, portal }
}
