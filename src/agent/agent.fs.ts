import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * Every reader takes the filesystem root it reads under: `/` in production, a fixture tree in
 * tests. A file that is missing or unreadable reads as null: hardware differs, and a reader
 * reports what the machine has instead of failing the whole sample.
 */
export function readText(root: string, path: string): string | null {
  try {
    return readFileSync(join(root, path), 'utf8')
  } catch {
    return null
  }
}

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
