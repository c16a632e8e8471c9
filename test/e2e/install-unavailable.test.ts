import { afterAll, expect, test } from 'bun:test'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { systemClock } from '../../src/lib/clock'
import { ensureBinary, tempDir } from '../helpers/binary'
import { testApp } from '../helpers/app'
import { createTenant } from '../helpers/fixtures'

/**
 * A hub run from source (these tests run it under bun, as `bun run start` does) has no
 * collector executable of its own to serve: the enrolment answer, the download and install.sh
 * say so and what to do. VIGIL_AGENT_EXECUTABLE points it at a built one.
 */
const apps: { stop(force?: boolean): void }[] = []
afterAll(() => {
  for (const s of apps) s.stop(true)
})

function hubFromSource(config: { agentExecutable?: string } = {}) {
  const t = testApp({ clock: systemClock, config: { dataDir: tempDir('vigil-source-'), ...config } })
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req) => t.handle(req) })
  apps.push(server)
  return { t, hub: `http://127.0.0.1:${server.port}` }
}

async function enrol(t: ReturnType<typeof testApp>, hub: string) {
  const a = await createTenant(t, { maxDevices: 5 })
  const res = await fetch(`${hub}/v1/enrolments`, { method: 'POST', headers: { ...a.userHeaders, 'content-type': 'application/json' }, body: '{}' })
  expect(res.status).toBe(201)
  return (await res.json()) as { install_command: string; install_available: boolean; install_unavailable_reason: string | null }
}

test('from source: the enrolment says the install is unavailable and why; the download is a 404 saying the same; install.sh prints it and fails', async () => {
  const { t, hub } = hubFromSource()
  const e = await enrol(t, hub)
  expect(e.install_available).toBe(false)
  expect(e.install_unavailable_reason).toContain('this hub runs from source and has no executable to serve')
  expect(e.install_unavailable_reason).toContain('bun run build')
  expect(e.install_unavailable_reason).toContain('VIGIL_AGENT_EXECUTABLE')

  const res = await fetch(`${hub}/download/vigil-linux-${process.arch}`)
  expect(res.status).toBe(404)
  expect(await res.text()).toContain(e.install_unavailable_reason!)
  expect((await fetch(`${hub}/download/vigil-linux-${process.arch}.gz`)).status).toBe(404)

  const root = tempDir('vigil-root-')
  const line = `${e.install_command.replace('| sudo sh', '| sh')} --no-systemd --bin ${join(root, 'vigil')} --state-dir ${join(root, 'state')}`
  const run = Bun.spawn(['sh', '-c', line], { stdout: 'pipe', stderr: 'pipe' })
  const err = await new Response(run.stderr).text()
  expect(await run.exited).not.toBe(0)
  expect(err).toContain('answered 404')
  expect(err).toContain('this hub runs from source and has no executable to serve')
  expect(() => statSync(join(root, 'vigil'))).toThrow()
}, 60_000)

test('VIGIL_AGENT_EXECUTABLE serves a built vigil for the architecture its ELF header names', async () => {
  const { t, hub } = hubFromSource({ agentExecutable: ensureBinary() })
  const e = await enrol(t, hub)
  expect(e).toMatchObject({ install_available: true, install_unavailable_reason: null })
  const sum = await (await fetch(`${hub}/download/vigil-linux-${process.arch}.sha256`)).text()
  const own = new Bun.CryptoHasher('sha256').update(await Bun.file(ensureBinary()).bytes()).digest('hex')
  expect(sum).toBe(`${own}  vigil-linux-${process.arch}\n`)
  // the other architecture is not this file
  expect((await fetch(`${hub}/download/vigil-linux-${process.arch === 'x64' ? 'arm64' : 'x64'}`)).status).toBe(404)
}, 60_000)
