import { describe, expect, test } from 'bun:test'
import { head, itemOf, lostJson, pack, parsePayload, referenceText } from '../../src/db/pg/notify.wire'

describe("the hubs' NOTIFY payloads", () => {
  test('queued messages are packed several to a payload, never past the limit, and read back in order', () => {
    const queue = Array.from({ length: 50 }, (_, i) => itemOf('bus', `c${i % 2}`, JSON.stringify({ i, text: 'é'.repeat(100) })))
    const envelope = head('hubA', 7, null)
    const first = pack(queue, envelope, 2_000)
    expect(first.fits).toBe(true)
    expect(first.taken).toBeGreaterThan(1)
    expect(first.taken).toBeLessThan(50)
    // bytes, not characters: é is two
    expect(Buffer.byteLength(first.text)).toBeLessThanOrEqual(2_000)
    // and one more would not have fit
    expect(Buffer.byteLength(pack(queue.slice(0, first.taken + 1), envelope, 1e9).text)).toBeGreaterThan(2_000)
    const p = parsePayload(first.text)!
    expect(p.origin).toBe('hubA')
    expect(p.n).toBe(7)
    expect(p.items.map((m) => (m.body as { i: number }).i)).toEqual(Array.from({ length: first.taken }, (_, i) => i))
    expect(p.items[1]!.key).toBe('c1')
  })

  test('one message over the limit is taken alone and marked as not fitting (it goes by reference)', () => {
    const big = itemOf('bus', 'c1', JSON.stringify({ x: 'x'.repeat(9_000) }))
    const small = itemOf('bus', 'c1', '{}')
    const batch = pack([big, small], head('hubA', 1, null))
    expect(batch).toMatchObject({ taken: 1, fits: false })
    expect(parsePayload(referenceText('hubA', 1, 42))).toEqual({ origin: 'hubA', n: 1, ref: 42, items: [], lost: null })
  })

  test('the accounts whose messages were dropped travel with the next payload', () => {
    expect(parsePayload(pack([], head('h', 2, lostJson(['c1', 'c2']))).text)!.lost).toEqual(['c1', 'c2'])
    expect(parsePayload(pack([], head('h', 3, lostJson('all'))).text)!.lost).toBe('all')
  })

  test("what is not one of the hubs' payloads is ignored", () => {
    for (const text of ['', 'hello', '[]', '{"o":1,"n":1,"m":[]}', '{"o":"h","m":[]}', '{"o":"h","n":1}']) expect(parsePayload(text)).toBeNull()
    expect(parsePayload('{"o":"h","n":1,"m":[[1,"k",{}],["t","k",null]]}')!.items).toEqual([{ topic: 't', key: 'k', body: null }])
  })
})
