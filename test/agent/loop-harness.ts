import { afterEach, expect } from 'bun:test'
import { startAgent, type Agent, type AgentOptions } from '../../src/agent/agent.main'
import { manualClock } from '../../src/lib/clock'
import { memoryLogger } from '../../src/lib/logger'
import { manualTimers } from '../helpers/timers'
import { tempDirs } from '../helpers/temp-dirs'
import { countingSampler, fakeHub } from './fake-hub'

/**
 * An agent loop against a fake hub, with the test's clock and timers: `tick()` makes one
 * interval pass and waits for the sample and its sending to end. Agents and hubs are stopped
 * after each test.
 */
export const INTERVAL = 10_000
export const tempDir = tempDirs('vigil-agent-')
const identity = { hostname: 'box-1', os: 'linux', os_version: 'test', arch: 'x86_64', fingerprint: 'fp-box-1' }
const hubs: ReturnType<typeof fakeHub>[] = []
const agents: Agent[] = []
afterEach(async () => {
  for (const a of agents.splice(0)) await a.stop().catch(() => {})
  for (const h of hubs.splice(0)) h.server.stop(true)
})

export function setup(opts: Partial<AgentOptions> & { random?: () => number } = {}) {
  const hub = fakeHub()
  hubs.push(hub)
  const clock = manualClock()
  const m = manualTimers()
  const { logger, lines } = memoryLogger()
  const stateDir = opts.stateDir ?? tempDir()
  const sampler = countingSampler(clock)
  const start = (over: Partial<AgentOptions> = {}) => {
    const agent = startAgent(
      { hub: hub.url, key: 'vk_test', intervalMs: INTERVAL, stateDir, ...opts, ...over },
      { sampler, clock, timers: m.timers, fetch: (u, i) => fetch(u, i), log: logger, identity, random: opts.random ?? (() => 0) },
    )
    agents.push(agent)
    return agent
  }
  const agent = start()
  /** one interval passes: the tick runs to its end */
  const tick = async (a: Agent = agent) => {
    clock.advance(INTERVAL)
    expect(m.fire()).toBe(1)
    await a.settled()
  }
  return { hub, agent, clock, tick, lines, stateDir, start, m, sampler }
}
