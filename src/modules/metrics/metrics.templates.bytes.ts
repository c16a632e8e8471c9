import type { JsonBytes } from '../../lib/json-bytes'
import { countSlots } from './metrics.templates'

/** Writes a text from its template into an answer being written: the numbers of its slots are `values[at]` on. */
export type TemplateBytes = (out: JsonBytes, values: Float64Array, at: number) => void

/**
 * The writer of a template's texts as UTF-8 bytes, straight into the answer (a history page):
 * the same characters `templateText` makes, without making them a string first. A page's texts
 * made into strings and then copied into the answer as UTF-8 were about half of what a page
 * allocated. Numbers come out as String() writes them: JsonBytes#number writes JSON.stringify's
 * form, which is String()'s for every finite number, and a slot only ever holds one.
 */
export function templateBytes(template: string): TemplateBytes {
  // encoded once: a SLOT is one zero byte in UTF-8, and JSON text holds no other
  const all = Buffer.from(template, 'utf8')
  const flat = new Uint8Array(all.length)
  const ends = new Int32Array(countSlots(template) + 1)
  let n = 0
  let k = 0
  for (let i = 0; i < all.length; i++) {
    const b = all[i]!
    if (b === 0) ends[k++] = n
    else flat[n++] = b
  }
  ends[k] = n
  // the parts one after the other (`flat`, no slots), and where each ends
  const parts = flat.subarray(0, n)
  return (out, values, at) => out.pieces(parts, ends, values, at)
}
