import { describe, expect, test } from 'bun:test'
import { FormatRegistry } from '@sinclair/typebox'
import { isRfc3339DateTime } from '../../src/lib/date-time'
import '../../src/app'

describe('isRfc3339DateTime', () => {
  test('accepts RFC 3339 date-times with Z or an offset, any fraction up to 9 digits', () => {
    for (const s of [
      '2026-01-31T12:00:00Z',
      '2026-01-31t12:00:00z',
      '2024-02-29T23:59:59.999Z',
      '2026-06-01T00:00:00.123456789+02:00',
      '1970-01-01T00:00:00Z',
      '9999-12-31T23:59:59-23:59',
      '2000-02-29T00:00:00Z',
    ]) {
      expect({ s, ok: isRfc3339DateTime(s) }).toEqual({ s, ok: true })
    }
  })

  test('refuses impossible dates, times and offsets, odd years and other spellings', () => {
    const bad = [
      '2024-02-30T00:00:00Z',
      '2023-02-29T00:00:00Z',
      '1900-02-29T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-00-10T00:00:00Z',
      '2026-01-00T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T12:60:00Z',
      '2026-01-01T12:00:60Z',
      '2026-01-01T12:00:00+24:00',
      '2026-01-01T12:00:00+01:60',
      '0000-01-01T00:00:00Z',
      '-000001-01-01T00:00:00Z',
      '+002026-01-01T00:00:00Z',
      '1969-12-31T23:59:59Z',
      '10000-01-01T00:00:00Z',
      '2026-01-01',
      '2026-01-01T12:00Z',
      '2026-01-01T12:00:00',
      '2026-01-01 12:00:00Z',
      '2026-01-01T12:00:00.Z',
      '2026-01-01T12:00:00.1234567890Z',
      '2026-01-01T12:00:00+0100',
      'Thu Jan 01 2026 00:00:00 GMT+0000',
      'yesterday',
      '',
      ' 2026-01-01T00:00:00Z',
      '2026-01-01T00:00:00Z\n',
    ]
    for (const s of bad) expect({ s, ok: isRfc3339DateTime(s) }).toEqual({ s, ok: false })
  })

  test('agrees with Date on every valid instant: same calendar fields, so nothing is silently moved', () => {
    let seed = 7
    const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n
    const pad = (n: number, w = 2) => String(n).padStart(w, '0')
    for (let i = 0; i < 20_000; i++) {
      const [y, mo, d, h, mi, s] = [1970 + rand(8030), 1 + rand(12), 1 + rand(31), rand(24), rand(60), rand(60)]
      const text = `${pad(y, 4)}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}:${pad(s)}Z`
      const parsed = new Date(Date.parse(text))
      const real = !Number.isNaN(parsed.getTime()) && parsed.getUTCFullYear() === y && parsed.getUTCMonth() + 1 === mo && parsed.getUTCDate() === d
      expect({ text, ok: isRfc3339DateTime(text) }).toEqual({ text, ok: real })
    }
  })

  test("is the 'date-time' format every schema uses once the app is loaded", () => {
    expect(FormatRegistry.Get('date-time')).toBe(isRfc3339DateTime)
  })
})
