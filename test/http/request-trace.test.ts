import { afterEach, describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { testConfig } from '../../src/config'
import { gateway } from '../../src/http/gateway'
import { requestPipeline } from '../../src/http/pipeline'
import type { Authenticator } from '../../src/http/principal'
import { memoryRateLimiter } from '../../src/http/rate-limiter'
import { requestTrace, type TraceFile } from '../../src/lib/request-trace'
import { manualClock } from '../../src/lib/clock'
import { memoryLogger } from '../../src/lib/logger'
import { attribute } from '../../scripts/bench/reads-trace'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
const tmpFile = () => {
  const d = mkdtempSync(join(tmpdir(), 'vigil-trace-'))
  dirs.push(d)
  return join(d, 'trace.json')
}

const anonymous: Authenticator = {
  verifyAccessToken: async () => ({ kind: 'invalid', code: 'invalid_token', message: 'no' }) as never,
  verifyApiKey: () => ({ kind: 'invalid', code: 'invalid_api_key', message: 'no' }) as never,
  rateLimitFor: () => 1_000,
  memberRole: () => null,
}

/** an app of the gateway and one route, traced into `trace` */
function tracedApp(trace: ReturnType<typeof requestTrace>) {
  const config = testConfig()
  const pipeline = requestPipeline({ config, clock: manualClock(), logger: memoryLogger().logger, limiter: memoryRateLimiter(), auth: anonymous })
  return new Elysia().use(gateway(pipeline, config.maxBodyBytes, trace)).get('/read', () => ({ ok: true }))
}

describe('the request trace (VIGIL_TRACE_REQUESTS)', () => {
  test('off without a file, an empty VIGIL_TRACE_REQUESTS included: requests are answered and no sampler runs', async () => {
    for (const file of [undefined, '']) {
      const trace = requestTrace(file)
      expect(trace.on).toBe(false)
      const res = await tracedApp(trace).handle(new Request('http://localhost/read'))
      expect(res.status).toBe(200)
      trace.flush()
    }
    // the one shared no-op: no timer, no record, nothing to write
    expect(requestTrace('')).toBe(requestTrace(undefined))
  })

  test('on: each request records its stages in order, and the hub writes them when it stops', async () => {
    const file = tmpFile()
    const trace = requestTrace(file)
    const app = tracedApp(trace)
    const t0 = trace.now()
    for (let i = 0; i < 3; i++) expect((await app.handle(new Request('http://localhost/read'))).status).toBe(200)
    // the answered mark comes after the response is handed over
    await Bun.sleep(0)
    trace.event('job metrics.seal', t0)
    expect(existsSync(file)).toBe(false)
    trace.flush()
    const out = JSON.parse(readFileSync(file, 'utf8')) as TraceFile
    expect(out.requests).toHaveLength(3)
    for (const [path, ...stages] of out.requests) {
      expect(path).toBe('/read')
      expect(stages.every((t) => Number.isFinite(t) && t >= t0)).toBe(true)
      expect([...stages].sort((a, b) => a - b)).toEqual(stages)
    }
    // the loop's sampler reads the main thread's own usage
    expect(out.lags.every((l) => l.length === 6)).toBe(true)
    expect(out.events).toEqual([['job metrics.seal', t0, expect.any(Number)]])
  })
})

describe("the bench's attribution of a request's time", () => {
  const file: TraceFile = {
    requests: [
      ['/read', 100.5, 100.6, 100.7, 100.9, 101.0],
      ['/other', 102.1, 102.2, 102.3, 102.4, 102.5],
      ['/read', 103.2, 103.3, 103.4, 103.5, 103.6],
    ],
    lags: [[103.1, 1.5, 1.4, 2.2, 0, 3]],
    events: [['job metrics.seal', 102.9, 103.15]],
  }

  test("each client request is matched to the hub's record of it and split into parts that add up to it", () => {
    const got = attribute(
      [
        [100, 1.2],
        [103, 1],
      ],
      file,
      '/read',
    )
    expect(got).toHaveLength(2)
    const parts = (i: number) => got[i]!.parts.map((p) => Math.round(p * 10) / 10)
    expect(parts(0)).toEqual([0.5, 0.1, 0.1, 0.2, 0.1, 0.2])
    expect(got[0]!.lagMs).toBe(0)
    expect(got[0]!.events).toEqual([])
    // the second waited 0.2 ms before the hub ran anything for it, while a job held the loop
    expect(parts(1)).toEqual([0.2, 0.1, 0.1, 0.1, 0.1, 0.4])
    expect(got[1]!.lagMs).toBe(1.5)
    expect(got[1]!.lagUsage).toEqual([1.4, 2.2, 0, 3])
    expect(got[1]!.events).toEqual(['job metrics.seal'])
  })

  test('a request the hub has no record of is left out, and a stage not reached is counted as reached with the next', () => {
    const got = attribute(
      [
        [50, 1],
        [100, 1.2],
      ],
      { ...file, requests: [['/read', 100.5, 100.6, Number.NaN, Number.NaN, 101.0]] },
      '/read',
    )
    expect(got).toHaveLength(1)
    expect(got[0]!.parts.map((p) => Math.round(p * 10) / 10)).toEqual([0.5, 0.1, 0.4, 0, 0, 0.2])
  })
})
