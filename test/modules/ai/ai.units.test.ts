import { describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { InvalidOutput, parseModelAnswer } from '../../../src/modules/ai/ai.parse'
import { DEFAULT_PROMPT, renderPrompt, unknownVariables, compactSummary } from '../../../src/modules/ai/ai.prompt'
import { maskSecret, openSecret, sealSecret } from '../../../src/lib/secret-box'
import { isDue } from '../../../src/modules/ai/ai.jobs'
import { summaryOf } from '../../helpers/metrics-source'

describe('model answer parsing (strict)', () => {
  test('accepts the contract, with or without a ```json fence', () => {
    const body = { recommendations: [{ recommendation: ' Add RAM. ', category: 'memory', severity: 'warning' }] }
    expect(parseModelAnswer(JSON.stringify(body))).toEqual([{ recommendation: 'Add RAM.', category: 'memory', severity: 'warning' }])
    expect(parseModelAnswer(`\`\`\`json\n${JSON.stringify(body)}\n\`\`\``)).toHaveLength(1)
    expect(parseModelAnswer('{"recommendations":[]}')).toEqual([])
  })

  test('rejects prose, extra fields, unknown categories, more than 5 items', () => {
    const item = { recommendation: 'x', category: 'cpu', severity: 'info' }
    for (const text of [
      'Sure! Here are some tips: add RAM.',
      'Here you go: {"recommendations":[]}',
      JSON.stringify({ recommendations: [{ ...item, category: 'vibes' }] }),
      JSON.stringify({ recommendations: [{ ...item, severity: 'urgent' }] }),
      JSON.stringify({ recommendations: [{ ...item, extra: 1 }] }),
      JSON.stringify({ recommendations: Array(6).fill(item) }),
      JSON.stringify({ recommendations: [{ ...item, recommendation: '' }] }),
      JSON.stringify([item]),
    ])
      expect(() => parseModelAnswer(text)).toThrow(InvalidOutput)
  })
})

describe('prompt templates', () => {
  test('only documented variables; one-pass rendering', () => {
    expect(unknownVariables(DEFAULT_PROMPT)).toEqual([])
    expect(unknownVariables('Hi {{hostname}} {{ secrets }} {{env}}')).toEqual(['secrets', 'env'])
    const out = renderPrompt('{{hostname}} / {{ os }} / {{hours}}', { hostname: '{{os}}', os: 'linux', hours: '24', summary: '{}' })
    expect(out).toBe('{{os}} / linux / 24')
  })

  test('the model sees statistics only', () => {
    const s = compactSummary(summaryOf({ cpu_percent: { avg: 12.3456, p95: 40 } }))
    expect(JSON.parse(s).hardware.fields.cpu_percent.avg).toBe(12.35)
    expect(s).not.toContain('device_id')
  })
})

describe('secret box', () => {
  const key = new Uint8Array(randomBytes(32))
  test('round trip, bound to its owner and key', () => {
    const sealed = sealSecret(key, 'sk-live-abcdef123456', 'cli_a')
    expect(sealed).not.toContain('abcdef')
    expect(openSecret(key, sealed, 'cli_a')).toBe('sk-live-abcdef123456')
    expect(openSecret(key, sealed, 'cli_b')).toBeNull()
    expect(openSecret(new Uint8Array(randomBytes(32)), sealed, 'cli_a')).toBeNull()
  })
  test('masking shows at most the last 4 characters', () => {
    expect(maskSecret('sk-live-abcdef123456')).toBe('••••3456')
    expect(maskSecret('short')).toBe('••••')
  })
})

describe('schedules', () => {
  const h = (iso: string) => Date.parse(iso)
  test('due when the next slot after the last run has passed', () => {
    expect(isDue('0 * * * *', null, h('2026-01-01T00:10:00Z'))).toBe(true)
    expect(isDue('0 * * * *', h('2026-01-01T00:00:00Z'), h('2026-01-01T00:59:00Z'))).toBe(false)
    expect(isDue('0 * * * *', h('2026-01-01T00:00:00Z'), h('2026-01-01T01:00:00Z'))).toBe(true)
    expect(isDue('0 6 * * *', h('2026-01-01T06:00:00Z'), h('2026-01-02T05:00:00Z'))).toBe(false)
  })
})
