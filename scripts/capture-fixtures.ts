#!/usr/bin/env bun
/**
 * Copies the /proc and /sys files the agent's readers use from this machine into a fixture
 * tree (default test/agent/fixtures/captured), so reader tests run on real kernel output.
 * Only those files, never the whole of /proc: a few processes' stat files, no environment,
 * no command lines. The machine id is replaced by a fixed one.
 *
 *   bun scripts/capture-fixtures.ts [OUT_DIR]
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

const out = process.argv[2] ?? join(import.meta.dir, '../test/agent/fixtures/captured')
rmSync(out, { recursive: true, force: true })

const list = (dir: string) => {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}

/** Copies /path to OUT/path; sysfs and procfs files are read, not stat-copied (their size reads as 0 or 4096). */
function copy(path: string, maxLines = 200): void {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return // absent on this machine, or unreadable
  }
  // a busy machine's socket tables run to thousands of lines; the first ones show the format
  const lines = text.split('\n')
  if (lines.length > maxLines) text = `${lines.slice(0, maxLines).join('\n')}\n`
  const to = join(out, path)
  mkdirSync(dirname(to), { recursive: true })
  writeFileSync(to, text)
}

for (const f of [
  'stat',
  'cpuinfo',
  'meminfo',
  'filesystems',
  'diskstats',
  'self/mounts',
  'self/statm',
  'self/status',
  'net/dev',
  'net/wireless',
  'net/tcp',
  'net/tcp6',
  'net/udp',
  'net/udp6',
  'sys/kernel/hostname',
  'sys/kernel/osrelease',
]) {
  copy(`/proc/${f}`)
}
copy('/etc/os-release')
// a few processes: this one and init, enough for the name and field parsing
for (const pid of ['1', String(process.pid)]) copy(`/proc/${pid}/stat`)

// a whole disk is a directory under /sys/block; its dev file keeps it in git
for (const dev of list('/sys/block')) copy(`/sys/block/${dev}/dev`)
for (const cpu of list('/sys/devices/system/cpu').filter((c) => /^cpu\d+$/.test(c))) {
  const base = `/sys/devices/system/cpu/${cpu}`
  for (const f of ['topology/core_cpus_list', 'topology/thread_siblings_list', 'cpufreq/scaling_cur_freq', 'cpufreq/cpuinfo_max_freq']) copy(`${base}/${f}`)
}
for (const chip of list('/sys/class/hwmon')) {
  for (const dir of [`/sys/class/hwmon/${chip}`, `/sys/class/hwmon/${chip}/device`]) {
    for (const f of list(dir)) if (f === 'name' || /^(temp|fan)\d+_(input|label|max|crit)$/.test(f)) copy(`${dir}/${f}`)
  }
}
for (const zone of list('/sys/class/thermal').filter((z) => z.startsWith('thermal_zone'))) {
  for (const f of ['type', 'temp']) copy(`/sys/class/thermal/${zone}/${f}`)
}
for (const nic of list('/sys/class/net')) {
  for (const f of ['operstate', 'speed', 'mtu', 'address']) copy(`/sys/class/net/${nic}/${f}`)
}
for (const card of list('/sys/class/drm').filter((c) => /^card\d+$/.test(c))) {
  for (const f of ['vendor', 'product_name', 'gpu_busy_percent', 'mem_info_vram_used', 'mem_info_vram_total']) copy(`/sys/class/drm/${card}/device/${f}`)
}
mkdirSync(join(out, 'etc'), { recursive: true })
writeFileSync(join(out, 'etc/machine-id'), '0123456789abcdef0123456789abcdef\n')
console.log(`captured into ${out}`)
