/**
 * Where a process's resident memory is, per mapping (the collector's bench, agent-checks-mem.ts):
 * the pages of its executable that are present, attributed to the ELF section they belong to
 * (Bun's native code in .text, its read-only data in .rodata, its built-in JavaScript in
 * .bun_builtins, our own embedded JavaScript and bytecode in .bun), each split into clean pages
 * of the file and pages the process wrote (copied, its own); then the shared libraries, the heap
 * and the other anonymous mappings. Reads /proc/PID/maps and /proc/PID/pagemap (the present bit
 * needs no privilege), /proc/PID/smaps for the other mappings and smaps_rollup for PSS.
 */
import { closeSync, openSync, readFileSync, readlinkSync, readSync } from 'node:fs'

const PAGE = 4096

interface Section {
  name: string
  start: number
  end: number
}

/** The allocated sections of an ELF64 little-endian executable, by virtual address. */
export function elfSections(path: string): Section[] {
  const fd = openSync(path, 'r')
  try {
    const head = Buffer.alloc(64)
    readSync(fd, head, 0, 64, 0)
    if (head.readUInt32BE(0) !== 0x7f454c46 || head[4] !== 2) throw new Error(`${path}: not an ELF64 file`)
    const shoff = Number(head.readBigUInt64LE(0x28))
    const shentsize = head.readUInt16LE(0x3a)
    const shnum = head.readUInt16LE(0x3c)
    const shstrndx = head.readUInt16LE(0x3e)
    const table = Buffer.alloc(shentsize * shnum)
    readSync(fd, table, 0, table.length, shoff)
    const at = (i: number) => table.subarray(i * shentsize, (i + 1) * shentsize)
    const strs = at(shstrndx)
    const strBuf = Buffer.alloc(Number(strs.readBigUInt64LE(0x20)))
    readSync(fd, strBuf, 0, strBuf.length, Number(strs.readBigUInt64LE(0x18)))
    const out: Section[] = []
    for (let i = 1; i < shnum; i++) {
      const s = at(i)
      const flags = Number(s.readBigUInt64LE(0x08))
      const addr = Number(s.readBigUInt64LE(0x10))
      const size = Number(s.readBigUInt64LE(0x20))
      if (!(flags & 2) || !addr || !size) continue // not loaded
      const nameAt = s.readUInt32LE(0)
      out.push({ name: strBuf.toString('latin1', nameAt, strBuf.indexOf(0, nameAt)), start: addr, end: addr + size })
    }
    return out.sort((a, b) => a.start - b.start)
  } finally {
    closeSync(fd)
  }
}

interface Mapping {
  start: number
  end: number
  perms: string
  path: string
  rssKb: number
  anonKb: number
}

function mappings(pid: number): Mapping[] {
  const out: Mapping[] = []
  let cur: Mapping | null = null
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line)
    if (head) {
      cur = { start: Number.parseInt(head[1]!, 16), end: Number.parseInt(head[2]!, 16), perms: head[3]!, path: head[4]!, rssKb: 0, anonKb: 0 }
      out.push(cur)
      continue
    }
    const field = /^(Rss|Anonymous):\s+(\d+) kB/.exec(line)
    if (field && cur) {
      if (field[1] === 'Rss') cur.rssKb = Number(field[2])
      else cur.anonKb = Number(field[2])
    }
  }
  return out
}

/** KB per part of the process's resident memory, and its RSS and PSS. */
export function memoryMap(pid: number, exe: string): Record<string, number> {
  const sections = elfSections(exe)
  const real = readlinkSync(`/proc/${pid}/exe`)
  const parts: Record<string, number> = {}
  const add = (k: string, kb: number) => {
    if (kb) parts[k] = (parts[k] ?? 0) + kb
  }
  const pagemap = openSync(`/proc/${pid}/pagemap`, 'r')
  try {
    for (const m of mappings(pid)) {
      if (m.path !== real && !m.path.startsWith(`${real} `)) {
        if (m.path.endsWith('.so') || /\.so[.\d]*$/.test(m.path)) add(`lib ${m.path.split('/').pop()}`, m.rssKb)
        else if (m.path === '[heap]') add('heap (malloc)', m.rssKb)
        else if (m.path === '[stack]') add('stack', m.rssKb)
        else if (m.path.startsWith('[v')) add('kernel ([vdso], [vvar])', m.rssKb)
        else if (m.path === '' || m.path.startsWith('[anon')) add('anonymous mappings', m.rssKb)
        else add(`file ${m.path}`, m.rssKb)
        continue
      }
      // the executable: page by page, the section and whether the page is still the file's
      const pages = (m.end - m.start) / PAGE
      const buf = Buffer.alloc(pages * 8)
      readSync(pagemap, buf, 0, buf.length, (m.start / PAGE) * 8)
      for (let p = 0; p < pages; p++) {
        const e = buf.readBigUInt64LE(p * 8)
        if (!(e >> 63n)) continue // not present
        const file = (e >> 61n) & 1n
        const addr = m.start + p * PAGE
        // a page holding the tail of one section and the head of the next counts for the first
        const s = sections.find((x) => x.start < addr + PAGE && x.end > addr)
        add(`exe ${s?.name ?? '(between sections)'}${file ? '' : ' (written)'}`, 4)
      }
    }
  } finally {
    closeSync(pagemap)
  }
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')
  const kb = (f: string) => Number(new RegExp(`^${f}:\\s+(\\d+) kB`, 'm').exec(rollup)?.[1] ?? 0)
  parts.RSS = kb('Rss')
  parts.PSS = kb('Pss')
  parts['RSS anonymous'] = kb('Anonymous')
  return parts
}

if (import.meta.main) {
  const [pid, exe] = process.argv.slice(2)
  const parts = memoryMap(Number(pid), exe ?? readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0')[0]!)
  for (const [k, v] of Object.entries(parts).sort((a, b) => b[1] - a[1])) console.log(`${(v / 1024).toFixed(2).padStart(7)} MB  ${k}`)
}
