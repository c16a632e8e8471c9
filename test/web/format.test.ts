import { describe, expect, test } from 'bun:test'
import { ago, bytes, bytesPerSecond, celsius, dateTime, duration, mbps, ms, percent, zoneTitle } from '../../web/src/lib/format'

describe('format', () => {
  const cases: [string, string, string][] = [
    ['bytes(0)', bytes(0), '0 B'],
    ['bytes(1023)', bytes(1023), '1023 B'],
    ['bytes(1536)', bytes(1536), '1.5 KiB'],
    ['bytes(10 MiB)', bytes(10 * 1024 ** 2), '10 MiB'],
    ['bytes(1.25 GiB)', bytes(1.25 * 1024 ** 3), '1.25 GiB'],
    ['bytes(500 GiB)', bytes(500 * 1024 ** 3), '500 GiB'],
    ['bytes(2 TiB)', bytes(2 * 1024 ** 4), '2 TiB'],
    ['bytesPerSecond(2048)', bytesPerSecond(2048), '2 KiB/s'],
    ['percent(42.4)', percent(42.4), '42 %'],
    ['percent(3.14)', percent(3.14), '3.1 %'],
    ['percent(0)', percent(0), '0 %'],
    ['mbps(94.56)', mbps(94.56), '94.6 Mbps'],
    ['mbps(0.5)', mbps(0.5), '0.5 Mbps'],
    ['celsius(61.6)', celsius(61.6), '62 °C'],
    ['ms(12.345)', ms(12.345), '12.3 ms'],
    ['ms(250)', ms(250), '250 ms'],
    ['duration(45)', duration(45), '45 s'],
    ['duration(720)', duration(720), '12 min'],
    ['duration(3 h)', duration(3 * 3600 + 5), '3 h'],
    ['duration(5 d)', duration(5 * 86400), '5 d'],
  ]
  for (const [name, got, want] of cases) test(name, () => expect(got).toBe(want))

  test('every function says — for a missing value', () => {
    for (const f of [bytes, bytesPerSecond, percent, mbps, celsius, ms, duration]) {
      expect(f(null)).toBe('—')
      expect(f(undefined)).toBe('—')
      expect(f(Number.NaN)).toBe('—')
    }
    for (const f of [ago, dateTime]) {
      expect(f(null)).toBe('—')
      expect(f('not a date')).toBe('—')
    }
    expect(zoneTitle(null)).toBe('')
  })

  test('ago counts from now, either way', () => {
    const now = Date.parse('2025-03-01T12:00:00Z')
    expect(ago('2025-03-01T11:59:48Z', now)).toBe('12 s ago')
    expect(ago('2025-03-01T11:00:00Z', now)).toBe('1 h ago')
    expect(ago('2025-03-01T12:05:00Z', now)).toBe('in 5 min')
    expect(ago('2025-03-01T12:00:00Z', now)).toBe('just now')
  })

  test('a time is shown in the local zone, the hover text names the zone and UTC', () => {
    const iso = '2025-03-01T12:00:00.000Z'
    expect(dateTime(iso)).toMatch(/2025/)
    expect(zoneTitle(iso)).toContain('2025-03-01T12:00:00Z')
    expect(zoneTitle(iso)).toContain(Intl.DateTimeFormat().resolvedOptions().timeZone)
  })
})
