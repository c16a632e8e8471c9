/**
 * `bun scripts/bench/agent-checks-mem.ts [--before <executable>] [--seconds N]`: where the
 * collector's memory goes with service checks, per kind of check. One hub (dist/vigil) and, for
 * each executable (dist/vigil, and the one `--before` names beside it), agents at their default
 * 10 s interval side by side in one window: one without checks, one with 50 checks of a single
 * kind for each kind (HTTP, HTTPS, TCP, DNS, TLS, ping), and one with the bench's mix of the 50
 * (agent-checks.ts), all at the 10 s minimum so that every check has run a few times before the
 * window. Prints per agent its median RSS and, at the window's end, its resident memory per
 * mapping (agent-memory-map.ts): the executable's native code, read-only data, Bun's built-in
 * JavaScript, our embedded JavaScript and bytecode, its own (anonymous) memory and the libraries.
 * `--https-hub`: the hub serves HTTPS (a self-signed certificate each agent has pinned, as
 * `vigil agent enrol --pin` keeps it), so the agents report over TLS as most do.
 */
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Subprocess } from 'bun'
import { AGENT_RUNTIME_ENV } from '../../src/agent/agent.install'
import { HUB_CERT_FILE } from '../../src/agent/agent.tls'
import { selfSignedCert } from '../../test/helpers/check-servers'
import { checkMix, operator, startTargets } from './agent-checks'
import { memoryMap } from './agent-memory-map'
import { freePort, median, memoryMb, stop, waitReady } from './proc'

const root = join(import.meta.dir, '../..')
const arg = (name: string) => {
  const i = process.argv.indexOf(name)
  return i > 0 ? process.argv[i + 1] : undefined
}
const bins: Record<string, string> = { now: join(root, 'dist/vigil') }
if (arg('--before')) bins.before = resolve(arg('--before')!)
const WINDOW_S = Number(arg('--seconds') ?? 60)
const WARM_S = 35
const only = arg('--kinds')?.split(',')
const log = (msg: string) => console.error(`[mem ${new Date().toISOString().slice(11, 19)}] ${msg}`)

/** the agent's variants: the name and which of the mix's checks it gets (50 of one kind: the mix's first one of it, repeated) */
const KINDS: Record<string, ((c: Record<string, any>) => boolean) | null> = {
  none: null,
  http: (c) => c.kind === 'http' && !c.settings.url.startsWith('https:'),
  https: (c) => c.kind === 'http' && c.settings.url.startsWith('https:'),
  tcp: (c) => c.kind === 'tcp',
  dns: (c) => c.kind === 'dns',
  tls: (c) => c.kind === 'tls',
  ping: (c) => c.kind === 'ping',
  mix: () => true,
}

export interface Variant {
  name: string
  bin: string
  /** a key of KINDS */
  kind: string
  env?: Record<string, string>
}

/** Runs the variants' agents side by side; returns the table's lines. */
export async function agentsSideBySide(variants: Variant[], windowS: number, opts: { httpsHub?: boolean } = {}): Promise<string[]> {
  const tmp = mkdtempSync(join(tmpdir(), 'vigil-agent-mem-'))
  const port = freePort()
  const base = `${opts.httpsHub ? 'https' : 'http'}://127.0.0.1:${port}`
  const cert = opts.httpsHub ? selfSignedCert(30) : null
  if (cert) {
    writeFileSync(join(tmp, 'hub.pem'), cert.cert)
    writeFileSync(join(tmp, 'hub.key'), cert.key)
    // this script's own calls to the hub (accounts, checks); the agents verify it against their pin
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0'
  }
  const hub = Bun.spawn([join(root, 'dist/vigil'), 'serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', join(tmp, 'hub')], {
    env: {
      ...(cert ? { VIGIL_TLS_CERT: join(tmp, 'hub.pem'), VIGIL_TLS_KEY: join(tmp, 'hub.key') } : {}),
      PATH: process.env.PATH ?? '',
      VIGIL_MODE: 'service',
      VIGIL_LOG_LEVEL: 'warn',
      VIGIL_PUBLISH_SELF: 'false',
      VIGIL_BACKUP_SCHEDULE: 'off',
      VIGIL_RATE_LIMIT_FREE: '10000000',
    },
    stdout: 'ignore',
    stderr: 'inherit',
  })
  const targets = await startTargets()
  // each executable copied afresh, so that all are in the page cache as one just built is: a
  // mapped page's neighbours are mapped with it only when cached, and an executable read back
  // from disk is cached in other units (the same agent showed up to 2.5 MB less of its code)
  const copies = new Map<string, string>()
  for (const bin of new Set(variants.map((v) => v.bin))) {
    const copy = join(tmp, `vigil-${copies.size}`)
    copyFileSync(bin, copy)
    chmodSync(copy, 0o755)
    copies.set(bin, copy)
  }
  const agents: (Variant & { proc: Subprocess; rss: number[] })[] = []
  try {
    await waitReady(`${base}/health`, hub)
    for (const [i, v] of variants.entries()) {
      // "mix-dns": the mix without its DNS checks (what one kind adds beside the others); "mix-https-tls" without two
      const without = v.kind.startsWith('mix-')
        ? v.kind
            .split('-')
            .slice(1)
            .map((k) => KINDS[k])
        : null
      if (without?.some((w) => !w)) throw new Error(`no such kind in ${v.kind}`)
      const pick = without ? (c: Record<string, any>) => !without.some((w) => w!(c)) : KINDS[v.kind]
      if (pick === undefined) throw new Error(`no such kind: ${v.kind}`)
      const op = await operator(base, `agent-${i}@example.test`)
      const dir = join(tmp, `agent-${i}`)
      const device = await op.device(dir)
      if (cert) {
        mkdirSync(dir, { recursive: true })
        writeFileSync(join(dir, HUB_CERT_FILE), cert.cert)
      }
      if (pick) {
        const mix = checkMix(targets.ports, 10, device)
        const one = mix.filter(pick)
        await op.addChecks(
          v.kind.startsWith('mix') ? mix.filter(pick) : Array.from({ length: mix.length }, (_, n) => ({ ...one[n % one.length]!, name: `${v.kind} ${n}` })),
        )
      }
      const proc = Bun.spawn([copies.get(v.bin)!, 'agent', '--hub', base, '--key', op.key, '--interval', '10', '--state-dir', dir], {
        env: { PATH: process.env.PATH ?? '', ...AGENT_RUNTIME_ENV, ...v.env },
        stdout: 'ignore',
        stderr: 'ignore',
      })
      agents.push({ ...v, bin: copies.get(v.bin)!, proc, rss: [] })
    }
    log(`${agents.length} agents started; ${WARM_S} s of warm-up, then a ${windowS} s window`)
    await Bun.sleep(WARM_S * 1000)
    const started = performance.now()
    while (performance.now() - started < windowS * 1000) {
      for (const a of agents) a.rss.push(memoryMb(a.proc.pid)?.rss ?? 0)
      await Bun.sleep(5000)
    }
    const maps = agents.map((a) => memoryMap(a.proc.pid, a.bin))
    // AGENT_MEM_SMAPS_DIR=dir keeps each agent's /proc/PID/smaps, to look at its mappings one by one
    const keep = process.env.AGENT_MEM_SMAPS_DIR
    if (keep)
      for (const [i, a] of agents.entries()) writeFileSync(join(keep, `${i}-${a.name.replace(/\W+/g, '_')}.smaps`), readFileSync(`/proc/${a.proc.pid}/smaps`))
    const keys = [...new Set(maps.flatMap((m) => Object.keys(m)))]
      .filter((k) => maps.some((m) => (m[k] ?? 0) >= 100))
      .sort((a, b) => (maps[0]![b] ?? 0) - (maps[0]![a] ?? 0))
    return [
      `agents at 10 s reporting to a hub over ${opts.httpsHub ? 'HTTPS' : 'plain HTTP'}, 50 checks each at 10 s; ${windowS} s window; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(', ')}`,
      '',
      `| MB | ${agents.map((a) => a.name).join(' | ')} |`,
      `|---|${agents.map(() => '---').join('|')}|`,
      `| RSS median | ${agents.map((a) => median(a.rss).toFixed(1)).join(' | ')} |`,
      ...keys.map((k) => `| ${k} | ${maps.map((m) => ((m[k] ?? 0) / 1024).toFixed(2)).join(' | ')} |`),
    ]
  } finally {
    for (const a of agents) await stop(a.proc)
    await stop(targets.proc)
    await stop(hub)
    rmSync(tmp, { recursive: true, force: true })
  }
}

if (import.meta.main) {
  const variants: Variant[] = []
  for (const [binName, bin] of Object.entries(bins))
    for (const kind of Object.keys(KINDS)) if (!only || only.includes(kind)) variants.push({ name: `${binName} ${kind}`, bin, kind })
  console.log((await agentsSideBySide(variants, WINDOW_S, { httpsHub: process.argv.includes('--https-hub') })).join('\n'))
}
