import type { JsonBytes } from '../../lib/json-bytes'
import { SLOT } from './metrics.templates'

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
  const parts = template.split(SLOT).map((p) => Buffer.from(p, 'utf8'))
  // the parts one after the other, and where each ends (in bytes)
  const flat = new Uint8Array(Buffer.concat(parts))
  const ends = new Int32Array(parts.length)
  for (let k = 0, e = 0; k < parts.length; k++) ends[k] = e += parts[k]!.length
  return (out, values, at) => out.pieces(flat, ends, values, at)
}
