import { expect, test } from 'bun:test'
import { readHead } from '../../src/lib/capped-read'

/** a body in chunks that counts how many were pulled from it */
function body(chunks: string[]) {
  let pulled = 0
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[pulled++]
      if (next === undefined) controller.close()
      else controller.enqueue(new TextEncoder().encode(next))
    },
  })
  return { stream, pulled: () => pulled }
}

test('readHead keeps the first bytes of an answer and never reads the rest', async () => {
  const b = body(['a'.repeat(600), 'b'.repeat(600), 'c'.repeat(600), 'd'.repeat(600)])
  expect(await readHead(b.stream, 1024)).toBe('a'.repeat(600) + 'b'.repeat(424))
  expect(b.pulled()).toBeLessThanOrEqual(3)
})

test('readHead: an empty body is null, a short one whole, a character cut at the bound is dropped', async () => {
  expect(await readHead(body([]).stream, 10)).toBeNull()
  expect(await readHead(null, 10)).toBeNull()
  expect(await readHead(body(['ok']).stream, 10)).toBe('ok')
  expect(await readHead(body(['abc€']).stream, 4)).toBe('abc') // € is 3 bytes: half of it is not shown
})
