import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { readText } from '../../agent.fs'
import type { Reading } from './containers.figures'

/**
 * The container's cgroup v2 directory when this host has one for it: Docker with the systemd
 * cgroup driver (system.slice/docker-<id>.scope) or the cgroupfs one (docker/<id>), rootful
 * Podman (machine.slice/libpod-<id>.scope). Absent on cgroup v1 and in Docker inside LXC (the
 * paths differ), where the engine's /stats is used instead.
 */
export function cgroupDir(root: string, kind: 'docker' | 'podman', id: string): string | null {
  const dirs =
    kind === 'docker' ? [`sys/fs/cgroup/system.slice/docker-${id}.scope`, `sys/fs/cgroup/docker/${id}`] : [`sys/fs/cgroup/machine.slice/libpod-${id}.scope`]
  return dirs.find((dir) => readText(root, `${dir}/cpu.stat`) !== null) ?? null
}

/** One key's number in a flat-keyed cgroup file ("usage_usec 123"): a native regex, not a parse of every line (memory.stat has dozens). */
const keyOf = (text: string | null, key: string): number | null => {
  const m = text === null ? null : new RegExp(`^${key} (\\d+)$`, 'm').exec(text)
  return m ? Number(m[1]) : null
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
  // straight reads of small files by absolute path: about half the cost of the generic reader per file (docs/performance.md)
  const base = `${join(root, dir)}/`
  const read = (name: string): string | null => {
    try {
      return readFileSync(base + name, 'latin1')
    } catch {
      return null
    }
  }
  const usageUsec = keyOf(read('cpu.stat'), 'usage_usec')
  const current = read('memory.current')
  const inactive = keyOf(read('memory.stat'), 'inactive_file') ?? 0
  const max = read('memory.max')?.trim()
  const pids = read('pids.current')
  const usage = current === null ? null : Number(current.trim())
  return {
    at,
    cpuNs: (usageUsec ?? 0) * 1000,
    systemNs: null,
    onlineCpus: 1,
    memoryUsed: usage === null || !Number.isFinite(usage) ? null : Math.max(0, usage - (inactive < usage ? inactive : 0)),
    memoryLimit: max === undefined ? null : max === 'max' ? memTotal : Number(max),
    ...netTotals(root, pid),
    ...ioTotals(read('io.stat')),
    pids: pids === null ? null : Number(pids.trim()),
  }
}
