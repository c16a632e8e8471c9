import { FormatRegistry } from '@sinclair/typebox'

/** the oldest year a date-time may name: nothing Vigil stores or filters predates the Unix epoch */
export const MIN_YEAR = 1970

const SHAPE = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})$/
const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

const digit = (s: string, i: number) => s.charCodeAt(i) - 48
const two = (s: string, i: number) => digit(s, i) * 10 + digit(s, i + 1)

/**
 * A strict RFC 3339 date-time (`2026-01-31T12:00:00Z`, `…T12:00:00.123+02:00`): a real
 * calendar date in years 1970-9999, a time of day with seconds (no leap second), and a `Z` or
 * ±HH:MM offset. Date.parse alone moves 2024-02-30 to March 1 and takes years 0000 and
 * -000001. One regex test and digit arithmetic: this runs on every ingest body.
 */
export function isRfc3339DateTime(s: string): boolean {
  if (!SHAPE.test(s)) return false
  const year = two(s, 0) * 100 + two(s, 2)
  const month = two(s, 5)
  const day = two(s, 8)
  if (year < MIN_YEAR || month < 1 || month > 12 || day < 1) return false
  const leap = month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  if (day > DAYS[month]! + (leap ? 1 : 0)) return false
  if (two(s, 11) > 23 || two(s, 14) > 59 || two(s, 17) > 59) return false
  const end = s.length
  const zone = s.charCodeAt(end - 1)
  if (zone === 0x5a || zone === 0x7a) return true // Z, z
  return two(s, end - 5) <= 23 && two(s, end - 2) <= 59
}

// Replaces Elysia's own 'date-time' check (an unanchored ISO regex, or any string Date parses)
// for every schema: bodies, queries and the ingest validators alike.
FormatRegistry.Set('date-time', isRfc3339DateTime)
