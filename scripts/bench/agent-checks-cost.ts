/**
 * `bun scripts/bench/agent-checks-cost.ts [rounds]`: CPU time of one attempt of each kind of
 * check as the agent runs it (its probe dependencies; scripts/bench/agent.ts runs it with the
 * installed collector's environment, JIT off), against the bench's targets
 * (agent-check-targets.ts, in another process). Prints {kind: µs}; ping's child process is not
 * counted (its CPU is the footprint's "child processes").
 */
import type { CheckKind, CheckSettings } from '../../src/modules/checks/checks.model'
import { directProbeDeps } from '../../src/modules/checks/probes/probe.direct'
import { runProbe } from '../../src/modules/checks/probes/probe.run'
import { checkMix, startTargets } from './agent-checks'

const ROUNDS = Number(process.argv[2] ?? 20)
const targets = await startTargets()
const deps = directProbeDeps()
const kinds = new Map<string, { kind: CheckKind; settings: CheckSettings; timeout_ms: number }>()
for (const c of checkMix(targets.ports, 10, 'dev')) {
  const settings = c.settings as CheckSettings
  const name = settings.url?.startsWith('https:') ? 'https' : (c.kind as string)
  if (!kinds.has(name)) kinds.set(name, { kind: c.kind as CheckKind, settings, timeout_ms: 5000 })
}
const out: Record<string, number> = {}
try {
  for (const [name, def] of kinds) {
    for (let i = 0; i < 3; i++) {
      const r = await runProbe(def, deps)
      if (!r.ok) throw new Error(`${name}: ${r.error}`)
    }
    const before = process.cpuUsage()
    for (let i = 0; i < ROUNDS; i++) await runProbe(def, deps)
    const used = process.cpuUsage(before)
    out[name] = Math.round((used.user + used.system) / ROUNDS)
  }
} finally {
  targets.proc.kill()
}
console.log(JSON.stringify(out))
