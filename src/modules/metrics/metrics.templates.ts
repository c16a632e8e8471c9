/**
 * A JSON text as a template and its numbers (metrics.block.ts codes them apart): each number is
 * cut out where printing it again gives the same characters, leaving a SLOT in its place.
 */

/** Stands for a number cut out of a template (never in a JSON text: control characters are escaped there). */
export const SLOT = '\u0000'

const isNumberStart = (c: number) => c === 45 || (c >= 48 && c <= 57) // - 0-9
const isNumberPart = (c: number) => (c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46 || c === 101 || c === 69 // 0-9 - + . e E

/** Splits a JSON text into its template and the numbers cut out of it. */
export function splitNumbers(text: string): { template: string; numbers: number[] } {
  const numbers: number[] = []
  let template = ''
  let from = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92)
        i++ // a backslash escapes the next character
      else if (c === 34) inString = false
      continue
    }
    if (c === 34) {
      inString = true
      continue
    }
    if (!isNumberStart(c)) continue
    let j = i + 1
    while (j < text.length && isNumberPart(text.charCodeAt(j))) j++
    const token = text.slice(i, j)
    const value = Number(token)
    // only a number that prints back as the same characters is cut out (1.0, 1e2 and -0 stay in the template)
    if (String(value) === token) {
      template += text.slice(from, i) + SLOT
      numbers.push(value)
      from = j
    }
    i = j - 1
  }
  return { template: template + text.slice(from), numbers }
}

/** The text back from its template (split at its slots) and numbers. */
export function joinNumbers(parts: string[], numbers: Float64Array): string {
  let out = parts[0]!
  for (let k = 1; k < parts.length; k++) out += String(numbers[k - 1]) + parts[k]!
  return out
}

/** How many numbers a template's slots hold. */
export function countSlots(template: string): number {
  let n = 0
  for (let i = template.indexOf(SLOT); i !== -1; i = template.indexOf(SLOT, i + 1)) n++
  return n
}
