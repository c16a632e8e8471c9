import { expect, test } from 'bun:test'
import { existsSync, statfsSync } from 'node:fs'
import { readPartitions } from '../../src/agent/readers/disks'
import { readNicCounters } from '../../src/agent/readers/network'
import { createSampler } from '../../src/agent/agent.sample'
import { systemClock } from '../../src/lib/clock'

/**
 * The agent's figures against psutil's on this machine, in the same window. Debian's
 * python3-psutil (apt-get install -y python3-psutil) runs under the system Python.
 */
const PYTHON = '/usr/bin/python3'
const hasPsutil = existsSync(PYTHON) && Bun.spawnSync([PYTHON, '-c', 'import psutil']).exitCode === 0
if (!hasPsutil) console.warn('skipping the psutil accuracy test: python3-psutil is not installed (apt-get install -y python3-psutil)')
const isLinux = process.platform === 'linux'

/** psutil primes cpu_percent, says so, then on each stdin line answers with its figures. */
const SCRIPT = `
import json, sys, psutil
psutil.cpu_percent(percpu=False)
print('primed', flush=True)
for line in sys.stdin:
    vm = psutil.virtual_memory()
    parts = {p.mountpoint: psutil.disk_usage(p.mountpoint)._asdict() for p in psutil.disk_partitions()}
    nics = {k: v._asdict() for k, v in psutil.net_io_counters(pernic=True).items()}
    print(json.dumps({'cpu': psutil.cpu_percent(percpu=False), 'vm': vm._asdict(), 'parts': parts, 'nics': nics}), flush=True)
`

test.skipIf(!hasPsutil || !isLinux)(
  'CPU within 5 points, memory within 1 %, filesystems and network counters exact, against psutil',
  async () => {
    const py = Bun.spawn([PYTHON, '-c', SCRIPT], { stdin: 'pipe', stdout: 'pipe', stderr: 'inherit' })
    const reader = py.stdout.getReader()
    let buffer = ''
    const nextLine = async () => {
      while (!buffer.includes('\n')) {
        const { value, done } = await reader.read()
        if (done) throw new Error('psutil script ended')
        buffer += new TextDecoder().decode(value)
      }
      const at = buffer.indexOf('\n')
      const line = buffer.slice(0, at)
      buffer = buffer.slice(at + 1)
      return line
    }
    const ask = async () => {
      py.stdin.write('go\n')
      py.stdin.flush()
      return JSON.parse(await nextLine())
    }
    try {
      expect(await nextLine()).toBe('primed')
      const sampler = createSampler({ root: '/', clock: systemClock })
      sampler.prime()
      // a real measurement window: both sides read /proc/stat at its two ends
      await Bun.sleep(1000)
      const ours = await sampler.sample()
      const theirs = await ask()
      console.log(
        `cpu_percent: agent ${ours.hardware.cpu_percent}, psutil ${theirs.cpu}; ram_percent: agent ${ours.hardware.ram_percent}, psutil ${theirs.vm.percent}`,
      )
      expect(Math.abs(ours.hardware.cpu_percent! - theirs.cpu)).toBeLessThanOrEqual(5)

      const GIB = 1024 ** 3
      const vm = theirs.vm
      expect(ours.hardware.ram_total_gb! * GIB).toBeCloseTo(vm.total, -7) // rounded to 1 MB on the wire
      const tolerance = vm.total * 0.01
      expect(Math.abs(ours.hardware.ram_used_gb! * GIB - vm.used)).toBeLessThan(tolerance)
      expect(Math.abs(ours.hardware.ram_available_gb! * GIB - vm.available)).toBeLessThan(tolerance)
      expect(Math.abs(ours.hardware.ram_percent! - vm.percent)).toBeLessThanOrEqual(1)

      // exact figures need a moment when nothing changed: ours before and after psutil's read agree
      let compared = 0
      for (let attempt = 0; attempt < 20 && compared !== 3; attempt++) {
        const before = { parts: readPartitions('/', statfsSync), nics: readNicCounters('/') }
        const p = await ask()
        const after = { parts: readPartitions('/', statfsSync), nics: readNicCounters('/') }
        if (JSON.stringify(before.parts) === JSON.stringify(after.parts)) {
          const common = before.parts.filter((x) => p.parts[x.mountpoint])
          expect(common.length).toBeGreaterThan(0)
          for (const x of common) {
            const u = p.parts[x.mountpoint]
            expect({ mountpoint: x.mountpoint, total: x.total, used: x.used, free: x.free, percent: x.percent }).toEqual({
              mountpoint: x.mountpoint,
              total: u.total,
              used: u.used,
              free: u.free,
              percent: u.percent,
            })
          }
          compared |= 1
        }
        // loopback carries this test's own traffic; the agent's totals leave it out anyway
        const stable = [...before.nics.keys()].filter((n) => n !== 'lo' && JSON.stringify(before.nics.get(n)) === JSON.stringify(after.nics.get(n)))
        if (stable.length) {
          for (const n of stable) expect({ name: n, ...before.nics.get(n) }).toEqual({ name: n, ...p.nics[n] })
          compared |= 2
        }
      }
      expect(compared).toBe(3)
    } finally {
      py.stdin.end()
      py.kill()
    }
  },
  30_000,
)
