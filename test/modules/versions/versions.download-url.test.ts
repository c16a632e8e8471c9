import { expect, test } from 'bun:test'
import { testApp } from '../../helpers/app'
import { createTenant } from '../../helpers/fixtures'

test('POST /v1/versions: download_url must be an http(s) URL with a host', async () => {
  const t = testApp()
  const op = await createTenant(t, { role: 'admin' })
  let n = 0
  const publish = (download_url: string) =>
    t.request('POST', '/v1/versions', { headers: op.userHeaders, body: { platform: 'linux', version: `1.0.${n++}`, download_url, sha256: '0'.repeat(64) } })
  for (const bad of [
    'javascript:alert(1)',
    'JavaScript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'file:///etc/passwd',
    'ftp://example.test/c.tgz',
    'vbscript:msgbox',
    'https:///nohost',
    '//example.test/c.tgz',
  ]) {
    const res = await publish(bad)
    expect({ bad, status: res.status, loc: res.body.detail?.[0]?.loc }).toEqual({ bad, status: 422, loc: ['body', 'download_url'] })
  }
  for (const good of ['https://example.test/c.tar.gz', 'http://10.0.0.5:8080/vigil-agent', 'HTTPS://Example.test/A?b=1#c']) {
    expect((await publish(good)).status).toBe(200)
  }
})
