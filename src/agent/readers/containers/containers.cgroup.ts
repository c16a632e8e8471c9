import { readText } from '../../agent.fs'
import type { Reading } from './containers.figures'

/**
 * The container's cgroup v2 directory when this host has one for it: Docker with the systemd
 * cgroup driver (system.slice/docker-<id>.scope) or rootful Podman (machine.slice/libpod-<id>.scope).
 * Absent on cgroup v1, with the cgroupfs driver, and in Docker inside LXC (the paths differ),
 * where the engine's /stats is used instead.
 */
export function cgroupDir(root: string, kind: 'docker' | 'podman', id: string): string | null {
  const dir = kind === 'docker' ? `sys/fs/cgroup/system.slice/docker-${id}.scope` : `sys/fs/cgroup/machine.slice/libpod-${id}.scope`
  return readText(root, `${dir}/cpu.stat`) === null ? null : dir
}

const keyed = (text: string | null): Map<string, number> => {
  const out = new Map<string, number>()
  for (const line of (text ?? '').split('\n')) {
    const [k, v] = line.split(' ')
    if (k && v !== undefined) out.set(k, Number(v))
  }
  return out
}

/** rbytes and wbytes of io.stat, summed over devices ("8:0 rbytes=… wbytes=… rios=…"). */
function ioTotals(text: string | null): { read: number | null; write: number | null } {
  if (text === null) return { read: null, write: null }
  let read = 0
  let write = 0
  for (const m of text.matchAll(/\b([rw])bytes=(\d+)/g)) {
    if (m[1] === 'r') read += Number(m[2])
    else write += Number(m[2])
  }
  return { read, write }
}

/** Bytes received and sent over the container's interfaces but loopback, from its first process's /proc/<pid>/net/dev. */
function netTotals(root: string, pid: number | null): { rx: number | null; tx: number | null } {
  const text = pid ? readText(root, `proc/${pid}/net/dev`) : null
  if (text === null) return { rx: null, tx: null }
  let rx = 0
  let tx = 0
  for (const line of text.split('\n').slice(2)) {
    const colon = line.indexOf(':')
    if (colon === -1 || line.slice(0, colon).trim() === 'lo') continue
    const f = line
      .slice(colon + 1)
      .trim()
      .split(/\s+/)
    rx += Number(f[0]) || 0
    tx += Number(f[8]) || 0
  }
  return { rx, tx }
}

/**
 * A reading from the cgroup v2 files: what the engine's /stats reads itself, without the
 * request, the engine's work and the JSON (see docs/performance.md for the cost of each).
 * `memTotal` stands in for an unlimited memory.max, as `docker stats` shows the host's memory.
 */
export function readingFromCgroup(root: string, dir: string, pid: number | null, at: number, memTotal: number | null): Reading {
  const cpu = keyed(readText(root, `${dir}/cpu.stat`))
  const current = readText(root, `${dir}/memory.current`)
  const memStat = keyed(readText(root, `${dir}/memory.stat`))
  const max = readText(root, `${dir}/memory.max`)?.trim()
  const pids = readText(root, `${dir}/pids.current`)
  const usage = current === null ? null : Number(current.trim())
  const inactive = memStat.get('inactive_file') ?? 0
  return {
    at,
    cpuNs: (cpu.get('usage_usec') ?? 0) * 1000,
    systemNs: null,
    onlineCpus: 1,
    memoryUsed: usage === null || !Number.isFinite(usage) ? null : Math.max(0, usage - (inactive < usage ? inactive : 0)),
    memoryLimit: max === undefined ? null : max === 'max' ? memTotal : Number(max),
    ...netTotals(root, pid),
    ...ioTotals(readText(root, `${dir}/io.stat`)),
    pids: pids === null ? null : Number(pids.trim()),
  }
}
