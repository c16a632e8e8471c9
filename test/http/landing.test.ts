import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { testApp } from '../helpers/app'

/** Whatever the landing page tells a new user to do must exist on a fresh instance. */
describe('the landing page promises only what exists', () => {
  test('every endpoint it names is an operation of this instance, and answers on a fresh one', async () => {
    const t = testApp()
    const page = (await t.request('GET', '/')).text
    const doc = (await t.request('GET', '/openapi.json')).body as { paths: Record<string, Record<string, unknown>> }
    const named = [...page.matchAll(/<code>(GET|POST|PATCH|DELETE) (\/[^<\s]+)<\/code>/g)].map((m) => ({ method: m[1]!.toLowerCase(), path: m[2]! }))
    expect(named.length).toBeGreaterThanOrEqual(5)
    for (const { method, path } of named) expect({ method, path, declared: !!doc.paths[path]?.[method] }).toEqual({ method, path, declared: true })
    // the collector download of the versions endpoint is empty until an operator publishes one
    expect(page).not.toContain('/v1/versions')
  })

  test('the collector it tells to run is a command of this executable', async () => {
    const page = (await testApp().request('GET', '/')).text
    expect(page).toContain('vigil agent --hub')
    const help = Bun.spawnSync([process.execPath, join(import.meta.dir, '../../src/main.ts'), 'agent', '--help'], { stdout: 'pipe', stderr: 'pipe' })
    expect(help.exitCode).toBe(0)
    const text = help.stdout.toString() + help.stderr.toString()
    for (const flag of ['--hub', '--key-file']) expect(text).toContain(flag)
  })

  test('it tells how the operator registers beyond loopback and how others join', async () => {
    const page = (await testApp().request('GET', '/')).text
    for (const words of ['x-setup-token', 'vigil admin create', 'invitation_token', 'VIGIL_SIGNUP']) expect(page).toContain(words)
  })
})
