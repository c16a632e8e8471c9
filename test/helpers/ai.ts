import { randomBytes } from 'node:crypto'
import { testConfig, type AiDefaults } from '../../src/config'
import type { MetricsSource } from '../../src/modules/ai/ai.metrics-source'
import { testApp } from './app'

/** A test app with AI settings (short provider timeout) and, optionally, seeded metrics. */
export function aiTestApp(opts: { ai?: Partial<AiDefaults>; metricsSource?: MetricsSource } = {}) {
  const ai: AiDefaults = { ...testConfig().ai, timeoutMs: 200, ...opts.ai }
  const secretKey = new Uint8Array(randomBytes(32))
  return testApp({ config: { ai }, secretKey, metricsSource: opts.metricsSource })
}
