import { closeSync, openSync, readdirSync, readSync } from 'node:fs'
import { join } from 'node:path'

/**
 * Every reader takes the filesystem root it reads under: `/` in production, a fixture tree in
 * tests. A file that is missing or unreadable reads as null: hardware differs, and a reader
 * reports what the machine has instead of failing the whole sample.
 */
export function readText(root: string, path: string): string | null {
  let fd: number
  try {
    fd = openSync(join(root, path), 'r')
  } catch {
    return null
  }
  try {
    // one buffer for every read: procfs files report size 0, so readFileSync grows a fresh
    // buffer per file (a sample reads a few hundred files)
    let n = 0
    for (;;) {
      const got = readSync(fd, buffer, n, buffer.length - n, null)
      if (got <= 0) break
      n += got
      if (n === buffer.length) {
        const bigger = Buffer.allocUnsafe(buffer.length * 2)
        buffer.copy(bigger)
        buffer = bigger
      }
    }
    return buffer.toString('utf8', 0, n)
  } catch {
    return null
  } finally {
    closeSync(fd)
  }
}

let buffer = Buffer.allocUnsafe(64 * 1024)

/** A file holding one number (sysfs style), or null. */
export function readNumber(root: string, path: string): number | null {
  const text = readText(root, path)
  if (text === null) return null
  const n = Number(text.trim())
  return text.trim() !== '' && Number.isFinite(n) ? n : null
}

/** A file holding one line of text, trimmed, or null. */
export function readLine(root: string, path: string): string | null {
  const text = readText(root, path)
  return text === null ? null : text.trim()
}

/** The names in a directory, or [] when it is absent. */
export function listDir(root: string, path: string): string[] {
  try {
    return readdirSync(join(root, path))
  } catch {
    return []
  }
}

/** Rounds for the wire: samples carry no false precision. */
export const round = (n: number, digits = 2) => {
  const f = 10 ** digits
  return Math.round(n * f) / f
}

export const GIB = 1024 ** 3
