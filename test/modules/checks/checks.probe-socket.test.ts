import { afterEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { directProbeDeps } from '../../../src/modules/checks/probes/probe.direct'
import { runProbe } from '../../../src/modules/checks/probes/probe.run'
import { selfSignedCert } from '../../helpers/check-servers'

/**
 * The TCP and TLS probes open their connections with Bun's own sockets (probe.socket.ts): what
 * node:tls did for them has to hold there too, the server's name verified with its certificate,
 * and a connection given up at the deadline closed rather than left open.
 */
const stops: (() => unknown)[] = []
afterEach(() => {
  for (const s of stops.splice(0)) s()
})

describe('TCP and TLS probes over Bun sockets', () => {
  test('with verification on, a trusted certificate passes for the name it was made for and fails for another name', () => {
    const { cert, key } = selfSignedCert(30)
    const dir = mkdtempSync(join(tmpdir(), 'vigil-probe-ca-'))
    stops.push(() => rmSync(dir, { recursive: true, force: true }))
    writeFileSync(join(dir, 'ca.pem'), cert)
    writeFileSync(join(dir, 'cert.json'), JSON.stringify({ cert, key }))
    // trust is read at start-up (NODE_EXTRA_CA_CERTS), so the probes run in a process of their own
    const script = `
      import { directProbeDeps } from '${join(import.meta.dir, '../../../src/modules/checks/probes/probe.direct')}'
      import { runProbe } from '${join(import.meta.dir, '../../../src/modules/checks/probes/probe.run')}'
      const { cert, key } = await Bun.file('${join(dir, 'cert.json')}').json()
      const server = Bun.serve({ port: 0, hostname: '127.0.0.1', tls: { cert, key }, fetch: () => new Response('ok') })
      const deps = { ...directProbeDeps(), addresses: async () => ['127.0.0.1'] }
      const tls = (host) => runProbe({ kind: 'tls', settings: { host, port: server.port }, timeout_ms: 5000 }, deps)
      console.log(JSON.stringify({ byAddress: await tls('127.0.0.1'), byOtherName: await tls('other.example.test') }))
      server.stop(true)
    `
    writeFileSync(join(dir, 'run.ts'), script)
    const run = Bun.spawnSync([process.execPath, join(dir, 'run.ts')], { env: { ...process.env, NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem') } })
    expect(run.stderr.toString()).toBe('')
    const out = JSON.parse(run.stdout.toString())
    expect(out.byAddress).toMatchObject({ ok: true, error: null })
    expect(out.byOtherName).toMatchObject({ ok: false, error: 'TLS certificate not trusted (ERR_TLS_CERT_ALTNAME_INVALID)' })
  })

  test('a handshake that never comes is a timeout, and the connection is closed at the deadline', async () => {
    let closed: () => void = () => {}
    const wasClosed = new Promise<void>((resolve) => {
      closed = resolve
    })
    // accepts the connection and never answers the client hello
    const silent = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {}, close: () => closed() } })
    stops.push(() => silent.stop(true))
    const r = await runProbe({ kind: 'tls', settings: { host: '127.0.0.1', port: silent.port, verify_tls: false }, timeout_ms: 300 }, directProbeDeps())
    expect(r).toMatchObject({ ok: false, error: 'timeout after 300 ms' })
    await wasClosed
  })

  test('a TCP check closes the connection it opened', async () => {
    let closed: () => void = () => {}
    const wasClosed = new Promise<void>((resolve) => {
      closed = resolve
    })
    const server = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {}, close: () => closed() } })
    stops.push(() => server.stop(true))
    expect(await runProbe({ kind: 'tcp', settings: { host: '127.0.0.1', port: server.port }, timeout_ms: 2000 }, directProbeDeps())).toMatchObject({
      ok: true,
      detail: `connected to 127.0.0.1:${server.port}`,
    })
    await wasClosed
  })
})
