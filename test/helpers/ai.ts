import { randomBytes } from 'node:crypto'
import { testConfig, type AiDefaults, type Config } from '../../src/config'
import type { Resolver } from '../../src/lib/outbound/outbound.fetch'
import type { MetricsSource } from '../../src/modules/ai/ai.metrics-source'
import { testApp } from './app'

/** A test app with AI settings (short provider timeout) and, optionally, seeded metrics, DNS and fetch. */
export function aiTestApp(
  opts: { ai?: Partial<AiDefaults>; outbound?: Config['outbound']; metricsSource?: MetricsSource; resolve?: Resolver; fetch?: typeof fetch } = {},
) {
  const ai: AiDefaults = { ...testConfig().ai, timeoutMs: 200, ...opts.ai }
  const secretKey = new Uint8Array(randomBytes(32))
  const config = opts.outbound ? { ai, outbound: opts.outbound } : { ai }
  return testApp({ config, secretKey, metricsSource: opts.metricsSource, resolve: opts.resolve, fetch: opts.fetch })
}
