/**
 * `bun scripts/bench/agent-fake-docker.ts <containers> <socket>`: the fake Docker engine of the
 * tests (test/fakes/docker) with that many running containers whose counters move on every
 * stats call, in a process of its own, so that its work is not counted as the collector's.
 * Prints "ready" once the socket listens; runs until killed.
 */
import { containerId, type FakeContainer, startFakeDocker } from '../../test/fakes/docker/fake-docker'

const n = Number(process.argv[2] ?? 20)
const socketPath = process.argv[3]!
export const benchContainers = (count: number): FakeContainer[] =>
  Array.from({ length: count }, (_, i) => ({
    id: containerId(i.toString(16).padStart(8, '0')),
    name: `svc-${i}`,
    image: `app/svc-${i % 7}:1`,
    labels: { 'com.docker.compose.project': 'bench', 'com.docker.compose.service': `svc-${i}` },
    health: i % 5 === 0 ? 'healthy' : undefined,
    pid: 10_000 + i,
    cpuNs: 1e9,
    systemNs: 1e12,
  }))

if (import.meta.main) {
  const fake = startFakeDocker({ socketPath, containers: benchContainers(n) })
  // counters that move, as a live engine's do
  let tick = 0
  setInterval(() => {
    tick++
    for (let i = 0; i < n; i++) {
      const id = containerId(i.toString(16).padStart(8, '0'))
      fake.set(id, { cpuNs: 1e9 + tick * 1e8, systemNs: 1e12 + tick * 2e10, rxBytes: tick * 10_000, txBytes: tick * 5_000, readBytes: tick * 4096 })
    }
  }, 1_000)
  console.log('ready')
}
