import { expect, test } from 'bun:test'
import { testApp } from '../../helpers/app'
import { createTenant } from '../../helpers/fixtures'

const SUM = 'c0ffee'.padEnd(64, '0')

test('POST /v1/versions: sha256 is 64 hex characters, stored lower-case, and required with a download_url', async () => {
  const t = testApp()
  const op = await createTenant(t, { role: 'admin' })
  const c = await createTenant(t)
  let n = 0
  const publish = (extra: Record<string, unknown>) =>
    t.request('POST', '/v1/versions', { headers: op.userHeaders, body: { platform: 'linux-x64', version: `1.0.${n++}`, ...extra } })

  const missing = await publish({ download_url: 'http://hub:8080/download/vigil-linux-x64' })
  expect(missing.status).toBe(422)
  expect(missing.body.detail[0].loc).toEqual(['body', 'sha256'])
  for (const bad of ['abc', 'g'.repeat(64), '0'.repeat(63), '0'.repeat(65), 42]) {
    const res = await publish({ download_url: 'http://hub/x', sha256: bad })
    expect({ bad, status: res.status, loc: res.body.detail?.[0]?.loc }).toEqual({ bad, status: 422, loc: ['body', 'sha256'] })
  }

  const ok = await publish({ download_url: 'http://hub:8080/download/vigil-linux-x64', sha256: SUM.toUpperCase() })
  expect(ok.status).toBe(200)
  expect(ok.body.sha256).toBe(SUM)
  // no download location: a checksum alone is allowed (a record of a build), a version without either too
  expect((await publish({ sha256: SUM })).status).toBe(200)
  expect((await publish({})).body.sha256).toBeNull()

  const latest = await t.request('GET', '/v1/versions/linux-x64', { headers: c.keyHeaders })
  expect(latest.body).toMatchObject({ version: '1.0.8', sha256: null })
  const row = t.db.sqlite.query('SELECT sha256 FROM collector_versions WHERE version = ?').get('1.0.7') as { sha256: string }
  expect(row.sha256).toBe(SUM)
})
