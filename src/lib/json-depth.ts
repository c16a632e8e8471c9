/**
 * The deepest nesting of objects and arrays a request body may have. The deepest legitimate
 * body, a metrics sample, nests 4 levels (body → hardware → disk_partitions → partition) and a
 * Stripe event about 8; deeper input is an attack: parsing, validating and storing it is
 * recursive work that took seconds at 20,000 levels and overflowed the stack at 100,000.
 */
export const MAX_JSON_DEPTH = 64

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d

/**
 * Whether JSON text nests objects/arrays deeper than `max`, by one pass over its characters
 * (no parse, no allocation), so it can run before JSON.parse. Brackets inside strings do not
 * count; an escaped quote does not end a string. Malformed text is not judged here: whatever
 * this says, JSON.parse refuses it next (an unbalanced `]` can only under-count invalid text).
 */
export function exceedsJsonDepth(text: string, max = MAX_JSON_DEPTH): boolean {
  if (opensAtMost(text, max)) return false
  const n = text.length
  let depth = 0
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      for (i++; i < n; i++) {
        const s = text.charCodeAt(i)
        if (s === QUOTE) break
        if (s === BACKSLASH) i++ // the escaped character, whatever it is, is part of the string
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return true
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--
    }
  }
  return false
}

/**
 * Text with at most `max` opening brackets in all cannot nest deeper than `max`. Counted with
 * native indexOf, several times faster than the character loop on an ingest batch, which then
 * runs only for bodies with more brackets than that.
 */
function opensAtMost(text: string, max: number): boolean {
  let count = 0
  for (let i = text.indexOf('{'); i !== -1; i = text.indexOf('{', i + 1)) if (++count > max) return false
  for (let i = text.indexOf('['); i !== -1; i = text.indexOf('[', i + 1)) if (++count > max) return false
  return true
}
