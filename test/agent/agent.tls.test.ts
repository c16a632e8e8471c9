import { afterAll, expect, test } from 'bun:test'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fetchPinnedCertificate, HUB_CERT_FILE, hubFetch, pinnedTls, PinError } from '../../src/agent/agent.tls'
import { updateFetch } from '../../src/agent/agent.update-start'
import { publicKeyPin } from '../../src/lib/tls-pin'
import { tempDir } from '../helpers/binary'

/** Two self-signed hubs on 127.0.0.1 with different keys (openssl makes them; skipped without it). */
const openssl = Bun.which('openssl')
const dir = tempDir('vigil-pin-')
function selfSigned(name: string) {
  const [key, cert] = [join(dir, `${name}.key`), join(dir, `${name}.pem`)]
  const args = [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    key,
    '-out',
    cert,
    '-days',
    '2',
    '-subj',
    `/CN=${name}`,
  ]
  Bun.spawnSync([openssl!, ...args], { stdout: 'ignore', stderr: 'ignore' })
  const pem = readFileSync(cert, 'utf8')
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    tls: { cert: pem, key: Bun.file(key) },
    fetch: (req) => (new URL(req.url).pathname === '/download/hub-certificate.pem' ? new Response(pem) : new Response('ok')),
  })
  return { pem, url: `https://127.0.0.1:${server.port}`, server }
}
const hubs = openssl ? { real: selfSigned('hub'), evil: selfSigned('evil') } : null
afterAll(() => {
  hubs?.real.server.stop(true)
  hubs?.evil.server.stop(true)
})

test('the certificate is kept only when its public key matches the pin; then only that hub is trusted', async () => {
  if (!hubs) return console.log('skipped: openssl is not installed')
  const pin = publicKeyPin(hubs.real.pem)
  expect(pin).toMatch(/^sha256\/\/[A-Za-z0-9+/]{43}=$/)
  const cert = await fetchPinnedCertificate(hubs.real.url, pin)
  expect(cert.trim()).toBe(hubs.real.pem.trim())
  // a hub in the middle with another key is refused at enrolment
  expect(fetchPinnedCertificate(hubs.evil.url, pin)).rejects.toBeInstanceOf(PinError)
  const tls = pinnedTls(cert)
  expect((await fetch(`${hubs.real.url}/v1/x`, { tls })).status).toBe(200)
  expect(fetch(`${hubs.evil.url}/v1/x`, { tls })).rejects.toThrow()
  // without the pin, a self-signed hub is refused (verification stays on)
  expect(fetch(`${hubs.real.url}/v1/x`)).rejects.toThrow()
  // curl checks the same pin form
  const curl = Bun.which('curl')
  if (curl) {
    const ok = Bun.spawn([curl, '-fsS', '-k', '--pinnedpubkey', pin, `${hubs.real.url}/`], { stdout: 'ignore', stderr: 'ignore' })
    const bad = Bun.spawn([curl, '-fsS', '-k', '--pinnedpubkey', pin, `${hubs.evil.url}/`], { stdout: 'ignore', stderr: 'ignore' })
    expect(await ok.exited).toBe(0)
    expect(await bad.exited).toBe(90)
  }
})

test("the hub's install_command carries the pin of its self-signed VIGIL_TLS_CERT for an https address", async () => {
  if (!hubs) return console.log('skipped: openssl is not installed')
  const { testApp } = await import('../helpers/app')
  const { createTenant } = await import('../helpers/fixtures')
  const t = testApp({ config: { tlsCert: join(dir, 'hub.pem'), tlsKey: join(dir, 'hub.key') } })
  const a = await createTenant(t)
  const pin = publicKeyPin(hubs.real.pem)
  const https = await t.request('POST', '/v1/enrolments', { body: { hub_url: 'https://hub.lan:8443' }, headers: a.userHeaders })
  expect(https.body.pin).toBe(pin)
  expect(https.body.install_command).toBe(
    `curl -fsSL -k --pinnedpubkey ${pin} https://hub.lan:8443/install.sh | sudo sh -s -- --token ${https.body.token} --pin ${pin}`,
  )
  const plain = await t.request('POST', '/v1/enrolments', { body: { hub_url: 'http://hub.lan:8080' }, headers: a.userHeaders })
  expect(plain.body.pin).toBeNull()
})

test("the updater asks a pinned hub through the pin, and a download_url elsewhere through the system's trust store", async () => {
  if (!hubs) return console.log('skipped: openssl is not installed')
  const stateDir = tempDir('vigil-pin-state-')
  writeFileSync(join(stateDir, HUB_CERT_FILE), hubs.real.pem)
  const elsewhere: string[] = []
  const forUpdates = updateFetch(hubs.real.url, hubFetch(stateDir), async (url) => {
    elsewhere.push(url)
    return new Response('elsewhere')
  })
  // the version check and a download from the hub itself: the self-signed hub is trusted by its pin
  expect((await forUpdates(`${hubs.real.url}/v1/versions/linux-x64`, {})).status).toBe(200)
  expect(await (await forUpdates(`${hubs.real.url}/download/vigil-linux-x64`, {})).text()).toBe('ok')
  expect(elsewhere).toEqual([])
  // a download_url on another origin never gets the hub's pin (it would refuse that server's certificate)
  expect(await (await forUpdates('https://files.example.com/vigil-linux-x64', {})).text()).toBe('elsewhere')
  expect(elsewhere).toEqual(['https://files.example.com/vigil-linux-x64'])
})
