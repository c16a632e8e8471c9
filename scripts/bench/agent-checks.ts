/**
 * The collector's bench, service checks (scripts/bench/agent.ts runs it): three agents at their
 * default 10 s interval side by side in one window on the same hub (dist/vigil), one without
 * checks, one with 50 checks at 60 s and one with the same 50 at the 10 s minimum. Each check
 * is assigned to its agent's device through the API, as a user would (run_on_hub false), and
 * the agent fetches it from GET /v1/agent/checks. The mix: 15 HTTP and 5 HTTPS requests,
 * 10 TCP connections, 8 DNS queries to a tiny local DNS server, 7 TLS handshakes and 5 pings of
 * 127.0.0.1 (iputils-ping, one child process each), all against targets in a process of their
 * own (agent-check-targets.ts). With VIGIL_BENCH_BEFORE naming another executable (main's
 * dist/vigil), three more agents run from it in the same window, for a side-by-side comparison.
 */
import { chmodSync, copyFileSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { fingerprintOf } from '../../src/agent/agent.device'
import { AGENT_RUNTIME_ENV } from '../../src/agent/agent.install'
import { readIdentity } from '../../src/agent/readers/identity'
import { DNS_ANSWER, DNS_NAME } from './agent-check-targets'

export const CHECKS_PER_AGENT = 50

interface Targets {
  http: number
  https: number
  tcp: number
  dns: number
}

/** The 50 checks of one agent, at one interval. */
export function checkMix(t: Targets, interval_s: number, device: string) {
  const base = { interval_s, timeout_ms: 5000, run_on_hub: false, device_ids: [device] }
  const checks: Record<string, unknown>[] = []
  const add = (n: number, kind: string, settings: (i: number) => Record<string, unknown>) => {
    for (let i = 0; i < n; i++) checks.push({ ...base, name: `${kind} ${i} @${interval_s}s`, kind, settings: settings(i) })
  }
  add(15, 'http', (i) => ({ url: `http://127.0.0.1:${t.http}/site/${i}`, keyword: 'status: ok' }))
  add(5, 'http', (i) => ({ url: `https://127.0.0.1:${t.https}/secure/${i}`, verify_tls: false, keyword: 'status: ok', cert_warn_days: 14 }))
  add(10, 'tcp', () => ({ host: '127.0.0.1', port: t.tcp }))
  add(8, 'dns', () => ({ name: DNS_NAME, record_type: 'A', resolver: `127.0.0.1:${t.dns}`, expected: [DNS_ANSWER] }))
  add(7, 'tls', () => ({ host: '127.0.0.1', port: t.https, verify_tls: false, cert_warn_days: 14 }))
  add(5, 'ping', () => ({ host: '127.0.0.1' }))
  return checks
}

/** A signed-in operator of a fresh account on the hub, with an API key for its agents. */
export async function operator(base: string, email: string) {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(base + path, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const json = (await res.json().catch(() => null)) as any
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
    return json
  }
  const creds = { email, password: 'correct horse battery' }
  await call('POST', '/v1/auth/register', creds)
  const auth = { authorization: `Bearer ${(await call('POST', '/v1/auth/login', creds)).access_token}` }
  const key: string = (await call('POST', '/v1/auth/api-keys', { name: 'agents' }, auth)).api_key
  return {
    key,
    /** the device an agent with this state dir will register as (same machine, its own fingerprint) */
    async device(stateDir: string): Promise<string> {
      const identity = readIdentity('/')
      const body = {
        hostname: identity.hostname,
        os: identity.os,
        os_version: identity.os_version,
        arch: identity.arch,
        fingerprint: fingerprintOf(identity, stateDir),
      }
      return (await call('POST', '/v1/clients/me/devices', body, { 'x-api-key': key })).device_id
    },
    async addChecks(checks: Record<string, unknown>[]) {
      for (const c of checks) await call('POST', '/v1/checks', c, auth)
    },
    /** the attempts the hub stored for the checks run on a device, and how many of them failed (with their errors) */
    async attempts(device: string): Promise<{ stored: number; failed: number; errors: string[] }> {
      const list = (await call('GET', '/v1/checks', undefined, auth)) as { id: string }[]
      const out = { stored: 0, failed: 0, errors: [] as string[] }
      for (const c of list) {
        const page = await call('GET', `/v1/checks/${c.id}/results?limit=1000&place=${device}`, undefined, auth)
        for (const r of page.items as { ok: boolean; error: string | null }[]) {
          out.stored++
          if (r.ok) continue
          out.failed++
          if (r.error && !out.errors.includes(r.error)) out.errors.push(r.error)
        }
      }
      return out
    },
  }
}

/** Starts the targets' process; resolves with their ports once they listen. */
export async function startTargets(): Promise<{ proc: Subprocess<'ignore', 'pipe', 'inherit'>; ports: Targets }> {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, 'agent-check-targets.ts')], { stdout: 'pipe', stderr: 'inherit' })
  const reader = proc.stdout.getReader()
  let text = ''
  while (!text.includes('\n')) {
    const { done, value } = await reader.read()
    if (done) throw new Error('agent-check-targets.ts exited before listening')
    text += new TextDecoder().decode(value)
  }
  reader.releaseLock()
  return { proc, ports: JSON.parse(text) as Targets }
}

/** CPU time of a process's children it has waited for (its pings), in ms. */
export function childCpuMs(pid: number): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(f[13]) + Number(f[14])) * 10
  } catch {
    return 0
  }
}

type Footprint = (
  pids: Record<string, number>,
  seconds: number,
) => Promise<Record<string, { rssMedian: number; rssMax: number; anonMedian: number; cpuPercent: number }>>

/**
 * The case itself: targets up, an operator's account, three devices (none, 50 checks at 60 s,
 * the same at 10 s), the agents started at once, warm-up past every check's first run, then one
 * footprint window for the three. Rows for the table.
 */
export async function checksCase(opts: {
  base: string
  tmp: string
  windowS: number
  startAgent: (key: string, stateDir: string, bin?: string) => Subprocess
  /** another executable whose three agents run beside these in the same window (VIGIL_BENCH_BEFORE) */
  before?: string
  footprint: Footprint
  stop: (p: Subprocess) => Promise<void>
  log: (msg: string) => void
}): Promise<[string, string, string][]> {
  const targets = await startTargets()
  const agents: Subprocess[] = []
  try {
    // an account each: on one machine the three agents share its fingerprint (/etc/machine-id)
    // the executable to compare with, copied afresh as dist/vigil was just built: both wholly in
    // the page cache alike (one read back from disk maps fewer of its pages around each touched)
    const before = opts.before ? join(opts.tmp, 'vigil-before') : null
    if (before) {
      copyFileSync(opts.before!, before)
      chmodSync(before, 0o755)
    }
    const sides = []
    for (const bin of before ? [undefined, before] : [undefined]) {
      for (const [name, interval] of [
        ['none', 0],
        ['at 60 s', 60],
        ['at 10 s', 10],
      ] as const) {
        const tag = `${bin ? 'before-' : ''}${interval}`
        const op = await operator(opts.base, `checks-${tag}@example.test`)
        const dir = join(opts.tmp, `agent-checks-${tag}`)
        const device = await op.device(dir)
        if (interval) await op.addChecks(checkMix(targets.ports, interval, device))
        sides.push({ name: bin ? `before, ${name}` : name, interval, dir, device, op, bin })
      }
    }
    for (const s of sides) agents.push(opts.startAgent(s.op.key, s.dir, s.bin))
    // the first runs are spread over the interval: past a whole 60 s one, every check has run
    opts.log(
      `checks: ${opts.windowS} s of ${sides.length} agents at 10 s side by side: none, ${CHECKS_PER_AGENT} checks at 60 s, ${CHECKS_PER_AGENT} at 10 s${before ? `, from this tree's executable and from ${opts.before}` : ''} (after 75 s of warm-up)`,
    )
    await Bun.sleep(75_000)
    const children0 = agents.map((a) => childCpuMs(a.pid))
    const fp = await opts.footprint(Object.fromEntries(sides.map((s, i) => [s.name, agents[i]!.pid])), opts.windowS)
    const childrenPct = agents.map((a, i) => ((childCpuMs(a.pid) - children0[i]!) / (opts.windowS * 1000)) * 100)
    const rows: [string, string, string][] = []
    for (const [i, s] of sides.entries()) {
      const f = fp[s.name]!
      const got = s.interval ? await s.op.attempts(s.device) : null
      const at = s.interval ? `${s.interval} s` : ''
      rows.push([
        `${s.bin ? 'before: ' : ''}${
          s.interval
            ? `agent at 10 s with ${CHECKS_PER_AGENT} checks at ${at} (${opts.windowS} s window)`
            : `agent at 10 s without checks, beside them (${opts.windowS} s window)`
        }`,
        `RSS ${round(f.rssMedian)} MB, CPU ${round(f.cpuPercent, 2)} % of a core`,
        `max RSS ${round(f.rssMax)} MB, its own (anonymous) memory ${round(f.anonMedian)} MB` +
          (got
            ? `; its pings' child processes ${round(childrenPct[i]!, 2)} % more; ${got.stored} attempts stored at the hub, ${got.failed} failed${got.errors.length ? ` (${got.errors.slice(0, 3).join('; ')})` : ''}`
            : ''),
      ])
    }
    const cost = Bun.spawnSync([process.execPath, join(import.meta.dir, 'agent-checks-cost.ts')], { env: { ...process.env, ...AGENT_RUNTIME_ENV } })
    if (cost.exitCode !== 0) throw new Error(`agent-checks-cost.ts failed: ${cost.stderr.toString()}`)
    const us = JSON.parse(cost.stdout.toString()) as Record<string, number>
    rows.push([
      'CPU per attempt of each kind (collector JIT off)',
      Object.entries(us)
        .map(([k, v]) => `${k} ${v} µs`)
        .join(', '),
      "20 attempts each against the same targets, in one process; ping's child process not counted",
    ])
    return rows
  } finally {
    for (const a of agents) await opts.stop(a)
    await opts.stop(targets.proc)
  }
}

const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d
