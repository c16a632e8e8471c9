import type { AnyElysia } from 'elysia'
import { createApp } from '../../src/app'
import { testConfig, type Config } from '../../src/config'
import { openDatabase } from '../../src/db/connection'
import { migrate } from '../../src/db/migrate'
import { manualClock } from '../../src/lib/clock'
import { memoryLogger } from '../../src/lib/logger'
import type { AppDeps } from '../../src/context'

export const TEST_JWT_SECRET = 'test-secret-test-secret-test-secret-!!'
/** argon2id made cheap for tests only; production keeps Bun's defaults */
export const TEST_PASSWORD_COST = { memoryCost: 4096, timeCost: 2 }

/** A fresh app on a fresh in-memory database with the real migrations, a manual clock and a memory logger. */
export function testApp(overrides: { config?: Partial<Config> } & Partial<Omit<AppDeps, 'config'>> = {}) {
  const clock = overrides.clock ?? manualClock()
  const db = overrides.db ?? openDatabase(':memory:')
  migrate(db.sqlite, clock.now())
  const { logger, lines } = memoryLogger()
  const config = testConfig(overrides.config)
  const { app, ctx, modules, jobs, handle, direct, requestsAdmitted } = createApp({
    logger,
    jwtSecret: TEST_JWT_SECRET,
    passwordCost: TEST_PASSWORD_COST,
    ...overrides,
    config,
    clock,
    db,
  })
  const base = 'http://localhost'

  /** Sends a request through the real app (its handle: the direct routes, else app.handle) and returns status, headers and parsed body. */
  async function request(method: string, path: string, opts: { body?: unknown; headers?: Record<string, string>; raw?: string } = {}) {
    const headers: Record<string, string> = { ...opts.headers }
    let body: string | undefined
    if (opts.raw !== undefined) body = opts.raw
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body)
      headers['content-type'] ??= 'application/json'
    }
    const res = await handle(new Request(base + path, { method, headers, body }))
    // the alert runtime evaluates what a request stored once it has answered: its effects are read after it ran
    await modules.alerts.runtime.settled()
    // a live stream does not end: its status and headers are the answer, its body is let go
    if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
      await res.body?.cancel()
      return { status: res.status, headers: res.headers, body: undefined as any, text: '' }
    }
    const text = await res.text()
    let json: any
    try {
      json = text ? JSON.parse(text) : undefined
    } catch {
      json = undefined
    }
    return { status: res.status, headers: res.headers, body: json, text }
  }

  return {
    // the app's full route type is deep enough to trip the compiler in every test that names TestApp
    app: app as AnyElysia,
    ctx,
    modules,
    jobs,
    handle,
    requestsAdmitted,
    directRoutes: direct.routes,
    db,
    clock: clock as ReturnType<typeof manualClock>,
    logs: lines,
    request,
  }
}

export type TestApp = ReturnType<typeof testApp>
