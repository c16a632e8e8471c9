/**
 * `bun scripts/bench/agent-containers-cost.ts <socket> <containers> <engine pid>`: CPU time per
 * running container and read, two ways: the engine's one-shot /stats and the cgroup v2 files (a
 * tree of the same files, written to a temp dir, read the same way). For each, the collector's
 * own time and the engine's (the fake engine of the tests, in another process: a lower bound
 * for a real one, which reads the same cgroup files through containerd and its shim before
 * writing the JSON). Prints {api_us, api_engine_us, cgroup_us, cgroup_engine_us}.
 * scripts/bench/agent.ts runs it with the installed collector's environment (JIT off).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createContainersPoller } from '../../src/agent/readers/containers/containers.poller'
import { createLogger } from '../../src/lib/logger'
import { benchContainers } from './agent-fake-docker'
import { cpuMs } from './proc'

const socketPath = process.argv[2]!
const n = Number(process.argv[3] ?? 50)
const enginePid = Number(process.argv[4])
const ROUNDS = 30
const quiet = createLogger({ level: 'error', format: 'json', write: () => {} })

const root = mkdtempSync(join(tmpdir(), 'vigil-cgroup-bench-'))
for (const c of benchContainers(n)) {
  const dir = join(root, `sys/fs/cgroup/system.slice/docker-${c.id}.scope`)
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'cpu.stat'), 'usage_usec 1234567\nuser_usec 1000000\nsystem_usec 234567\nnr_periods 0\nnr_throttled 0\nthrottled_usec 0\n')
  writeFileSync(join(dir, 'memory.current'), '52428800\n')
  writeFileSync(join(dir, 'memory.max'), 'max\n')
  writeFileSync(
    join(dir, 'memory.stat'),
    `${['anon 31457280', 'file 20971520', 'kernel 1048576', 'sock 0', 'shmem 0', 'file_mapped 1048576', 'file_dirty 0', 'active_anon 0', 'inactive_anon 31457280', 'active_file 10485760', 'inactive_file 10485760', 'unevictable 0', 'slab 524288', 'pgfault 12345', 'pgmajfault 12'].join('\n')}\n`,
  )
  writeFileSync(join(dir, 'io.stat'), '8:0 rbytes=1048576 wbytes=2097152 rios=100 wios=200 dbytes=0 dios=0\n')
  writeFileSync(join(dir, 'pids.current'), '7\n')
  mkdirSync(join(root, `proc/${c.pid}/net`), { recursive: true })
  writeFileSync(
    join(root, `proc/${c.pid}/net/dev`),
    'Inter-|   Receive                                                |  Transmit\n face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n    lo:       0       0    0    0    0     0          0         0        0       0    0    0    0     0       0          0\n  eth0: 1234567    1234    0    0    0     0          0         0   654321     987    0    0    0     0       0          0\n',
  )
}
mkdirSync(join(root, 'proc'), { recursive: true })
writeFileSync(join(root, 'proc/meminfo'), 'MemTotal:        8000000 kB\n')

async function perContainerUs(source: 'api' | 'auto'): Promise<{ own: number; engine: number }> {
  const p = createContainersPoller({ env: { DOCKER_HOST: `unix://${socketPath}` }, root, log: quiet, now: () => performance.now(), source })
  const round = async () => {
    p.latest()
    await p.settled()
  }
  for (let i = 0; i < 3; i++) await round() // discovery, inspections, first readings
  const mine = process.cpuUsage()
  const engine0 = cpuMs(enginePid) ?? 0
  for (let i = 0; i < ROUNDS; i++) await round()
  const used = process.cpuUsage(mine)
  const engineMs = (cpuMs(enginePid) ?? 0) - engine0
  return { own: (used.user + used.system) / ROUNDS / n, engine: (engineMs * 1000) / ROUNDS / n }
}

const api = await perContainerUs('api')
const cgroup = await perContainerUs('auto')
rmSync(root, { recursive: true, force: true })
const us = (x: number) => Math.round(x)
console.log(JSON.stringify({ api_us: us(api.own), api_engine_us: us(api.engine), cgroup_us: us(cgroup.own), cgroup_engine_us: us(cgroup.engine) }))
