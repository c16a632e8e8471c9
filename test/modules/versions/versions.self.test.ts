import { expect, test } from 'bun:test'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadConfig } from '../../../src/config'
import { publishSelf } from '../../../src/modules/versions/versions.self'
import { testApp } from '../../helpers/app'
import { createTenant } from '../../helpers/fixtures'
import { tempDirs } from '../../helpers/temp-dirs'

const tempDir = tempDirs('vigil-versions-self-')
const sha256 = (s: string) => new Bun.CryptoHasher('sha256').update(s).digest('hex')

function release(version: string, withArm64: boolean) {
  const dir = tempDir()
  const execPath = join(dir, 'vigil')
  writeFileSync(execPath, `x64 ${version}`)
  mkdirSync(join(dir, 'agents'))
  if (withArm64) writeFileSync(join(dir, 'agents', 'vigil-linux-arm64'), `arm64 ${version}`)
  return { version, execPath, arch: 'x64', dataDir: dir }
}

test('the hub publishes its own executable, and the other architecture placed in DATA_DIR/agents (where it is served from), with their SHA-256', async () => {
  const t = testApp()
  const c = await createTenant(t)
  expect(await publishSelf(t.modules.versions, release('1.4.0', true), t.ctx.logger)).toEqual(['linux-x64', 'linux-arm64'])
  const x64 = await t.request('GET', '/v1/versions/linux-x64', { headers: c.keyHeaders })
  expect(x64.body).toMatchObject({ version: '1.4.0', download_url: '/download/vigil-linux-x64', sha256: sha256('x64 1.4.0'), is_mandatory: false })
  const arm = await t.request('GET', '/v1/versions/linux-arm64', { headers: c.keyHeaders })
  expect(arm.body).toMatchObject({ version: '1.4.0', download_url: '/download/vigil-linux-arm64', sha256: sha256('arm64 1.4.0') })
  // the next start of the same hub: nothing new
  expect(await publishSelf(t.modules.versions, release('1.4.0', true), t.ctx.logger)).toEqual([])
})

test('only its own platform without the other executable; never under a version the operator published', async () => {
  const t = testApp()
  const op = await createTenant(t, { role: 'admin' })
  await t.request('POST', '/v1/versions', { headers: op.userHeaders, body: { platform: 'linux-x64', version: '2.0.0' } })
  expect(await publishSelf(t.modules.versions, release('1.5.0', false), t.ctx.logger)).toEqual([])
  expect(await publishSelf(t.modules.versions, release('2.1.0', false), t.ctx.logger)).toEqual(['linux-x64'])
})

test('VIGIL_PUBLISH_SELF: on by default, false turns it off', () => {
  expect(loadConfig({}).publishSelf).toBe(true)
  expect(loadConfig({ VIGIL_PUBLISH_SELF: 'false' }).publishSelf).toBe(false)
  expect(() => loadConfig({ VIGIL_PUBLISH_SELF: 'perhaps' })).toThrow('VIGIL_PUBLISH_SELF')
})
