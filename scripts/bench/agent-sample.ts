/**
 * Prints {p50, max} in ms of 50 samples of the collector's sampler reading this machine's /proc
 * and /sys. scripts/bench/agent.ts runs it with the installed collector's environment.
 */
import { createSampler } from '../../src/agent/agent.sample'
import { systemClock } from '../../src/lib/clock'

const sampler = createSampler({ root: '/', clock: systemClock })
sampler.prime()
await Bun.sleep(250)
const times: number[] = []
for (let i = 0; i < 50; i++) {
  const t0 = performance.now()
  await sampler.sample()
  times.push(performance.now() - t0)
  await Bun.sleep(20)
}
times.sort((a, b) => a - b)
console.log(JSON.stringify({ p50: times[25], max: times.at(-1) }))
