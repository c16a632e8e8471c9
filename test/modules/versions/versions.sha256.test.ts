import { expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { testApp } from '../../helpers/app'
import { createTenant } from '../../helpers/fixtures'

const SUM = 'c0ffee'.padEnd(64, '0')

test('POST /v1/versions: sha256 is 64 hex characters, stored lower-case, optional; a version without one is not installed automatically', async () => {
  const t = testApp()
  const op = await createTenant(t, { role: 'admin' })
  const c = await createTenant(t)
  let n = 0
  const publish = (extra: Record<string, unknown>) =>
    t.request('POST', '/v1/versions', { headers: op.userHeaders, body: { platform: 'linux-x64', version: `1.0.${n++}`, ...extra } })

  // the contract's VersionCreate has no sha256: a download elsewhere without one is listed, never installed
  const missing = await publish({ download_url: 'http://files.example.test/vigil-linux-x64' })
  expect(missing.status).toBe(200)
  expect(missing.body).toMatchObject({ sha256: null, auto_install: false })
  for (const bad of ['abc', 'g'.repeat(64), '0'.repeat(63), '0'.repeat(65), 42]) {
    const res = await publish({ download_url: 'http://hub/x', sha256: bad })
    expect({ bad, status: res.status, loc: res.body.detail?.[0]?.loc }).toEqual({ bad, status: 422, loc: ['body', 'sha256'] })
  }

  const ok = await publish({ download_url: 'http://hub:8080/download/vigil-linux-x64', sha256: SUM.toUpperCase() })
  expect(ok.status).toBe(200)
  expect(ok.body).toMatchObject({ sha256: SUM, auto_install: true })
  // no download location: a checksum alone is allowed (a record of a build), a version without either too
  expect((await publish({ sha256: SUM })).status).toBe(200)
  expect((await publish({})).body.sha256).toBeNull()

  const latest = await t.request('GET', '/v1/versions/linux-x64', { headers: c.keyHeaders })
  expect(latest.body).toMatchObject({ version: '1.0.8', sha256: null, auto_install: false })
  const row = t.db.sqlite.query('SELECT sha256 FROM collector_versions WHERE version = ?').get('1.0.7') as { sha256: string }
  expect(row.sha256).toBe(SUM)
})

test("POST /v1/versions without sha256 for the hub's own download: the hub computes the checksum of the file it serves", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-versions-'))
  mkdirSync(join(dataDir, 'agents'))
  const file = join(dataDir, 'agents', 'vigil-linux-arm64')
  writeFileSync(file, 'an arm64 build')
  const t = testApp({ config: { dataDir, siteUrl: 'https://hub.example.test' } })
  const op = await createTenant(t, { role: 'admin' })
  const expected = new Bun.CryptoHasher('sha256').update('an arm64 build').digest('hex')
  const publish = (version: string, download_url: string, platform = 'linux-arm64') =>
    t.request('POST', '/v1/versions', { headers: op.userHeaders, body: { platform, version, download_url } })

  // at the request's origin, and at VIGIL_SITE_URL (behind a proxy)
  expect((await publish('2.0.0', 'http://localhost/download/vigil-linux-arm64')).body).toMatchObject({ sha256: expected, auto_install: true })
  expect((await publish('2.0.1', 'https://hub.example.test/download/vigil-linux-arm64')).body).toMatchObject({ sha256: expected, auto_install: true })
  // a download this hub does not have, or another host's: no checksum, not installed automatically
  expect((await publish('2.0.2', 'http://localhost/download/vigil-linux-x64', 'linux-x64')).body).toMatchObject({ sha256: null, auto_install: false })
  expect((await publish('2.0.3', 'https://elsewhere.example.test/download/vigil-linux-arm64')).body).toMatchObject({ sha256: null, auto_install: false })
})

test("an executable's SHA-256 is the file's, read a megabyte at a time with the event loop running between the reads", async () => {
  const { fileSha256 } = await import('../../../src/modules/versions/versions.executables')
  const path = join(mkdtempSync(join(tmpdir(), 'vigil-sha-')), 'vigil-linux-x64')
  const bytes = new Uint8Array(8 << 20)
  for (let i = 0; i < bytes.length; i += 65_536) bytes.set(crypto.getRandomValues(new Uint8Array(65_536)), i)
  writeFileSync(path, bytes)
  // turns of the event loop while it hashes: a file's stream hands over chunks already read, and
  // looping over them gave the event loop no turn for the whole file (the self-publish's hash of
  // the hub's ~120 MB held it for up to a few hundred milliseconds)
  let turns = 0
  let hashing = true
  const turn = () => {
    if (!hashing) return
    turns++
    setImmediate(turn)
  }
  setImmediate(turn)
  const hex = await fileSha256(path)
  hashing = false
  expect(hex).toBe(new Bun.CryptoHasher('sha256').update(bytes).digest('hex'))
  expect(turns).toBeGreaterThanOrEqual(8)
})
