import { describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { ConfigError, loadConfig } from '../src/config'

describe('AI settings from the environment', () => {
  test('defaults: the rules provider, budget 48, no key', () => {
    const c = loadConfig({})
    expect(c.ai).toEqual({ provider: 'rules', baseUrl: null, apiKey: null, model: null, dailyBudget: 48, timeoutMs: 60_000 })
    expect(c.secretKey).toBeNull()
  })

  test('operator default provider', () => {
    const c = loadConfig({
      VIGIL_AI_PROVIDER: 'Ollama',
      VIGIL_AI_BASE_URL: 'http://192.168.1.9:11434/',
      VIGIL_AI_MODEL: 'llama3.1',
      VIGIL_AI_API_KEY: 'k',
      VIGIL_AI_DAILY_BUDGET: '10',
    })
    expect(c.ai).toMatchObject({ provider: 'ollama', baseUrl: 'http://192.168.1.9:11434', model: 'llama3.1', apiKey: 'k', dailyBudget: 10 })
  })

  test('bad values are clear errors', () => {
    expect(() => loadConfig({ VIGIL_AI_PROVIDER: 'gpt' })).toThrow(ConfigError)
    expect(() => loadConfig({ VIGIL_AI_BASE_URL: 'ollama:11434' })).toThrow(ConfigError)
    expect(() => loadConfig({ VIGIL_AI_DAILY_BUDGET: '-1' })).toThrow(ConfigError)
    expect(() => loadConfig({ VIGIL_SECRET_KEY: 'too-short' })).toThrow('VIGIL_SECRET_KEY')
    const key = randomBytes(32).toString('base64')
    expect(loadConfig({ VIGIL_SECRET_KEY: key }).secretKey).toBe(key)
  })
})
