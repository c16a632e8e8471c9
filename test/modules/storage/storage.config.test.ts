import { describe, expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '../../../src/config'

const budget = (v: string) => loadConfig({ VIGIL_STORAGE_BUDGET: v }).storage.budget
const warn = (v: string) => loadConfig({ VIGIL_STORAGE_DISK_WARN: v }).storage.diskWarnRatio

describe('VIGIL_STORAGE_BUDGET', () => {
  test('unset or empty: no budget, only the fixed retention prunes', () => {
    expect(loadConfig({}).storage.budget).toBeNull()
    expect(budget('  ')).toBeNull()
  })

  test('sizes in decimal and binary units, any case; a bare number is bytes', () => {
    expect(budget('8GB')).toEqual({ kind: 'bytes', bytes: 8e9, text: '8GB' })
    expect(budget('500MiB')).toMatchObject({ bytes: 500 * 2 ** 20 })
    expect(budget('2 mb')).toMatchObject({ bytes: 2_000_000 })
    expect(budget('1.5GiB')).toMatchObject({ bytes: 1.5 * 2 ** 30 })
    expect(budget('3000000')).toMatchObject({ bytes: 3_000_000 })
    expect(budget('1TB')).toMatchObject({ bytes: 1e12 })
  })

  test('a share of the data dir’s file system', () => {
    expect(budget('25%')).toEqual({ kind: 'share', share: 0.25, text: '25%' })
    expect(budget('12.5 %')).toMatchObject({ kind: 'share', share: 0.125 })
    expect(budget('100%')).toMatchObject({ share: 1 })
  })

  test('nonsense, a unit it does not know, too small or too large a share is refused with the setting named', () => {
    for (const bad of ['lots', '8XB', '-5GB', '0%', '101%', '500KB', '0', 'GB', '9e99GB', '5GB extra']) {
      expect(() => budget(bad)).toThrow(ConfigError)
      expect(() => budget(bad)).toThrow(/VIGIL_STORAGE_BUDGET/)
    }
  })
})

describe('VIGIL_STORAGE_DISK_WARN', () => {
  test('defaults to 90% used; takes a share with or without %', () => {
    expect(loadConfig({}).storage.diskWarnRatio).toBe(0.9)
    expect(warn('80%')).toBe(0.8)
    expect(warn('95')).toBe(0.95)
    expect(warn('97.5%')).toBe(0.975)
  })

  test('outside (0, 100] or not a number is refused', () => {
    for (const bad of ['0', '0%', '101%', 'high', '-3']) expect(() => warn(bad)).toThrow(/VIGIL_STORAGE_DISK_WARN/)
  })
})
