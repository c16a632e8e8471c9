import { afterAll, expect, test } from 'bun:test'
import { mkdirSync, readFileSync, statSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { systemClock } from '../../src/lib/clock'
import { ensureBinary, tempDir } from '../helpers/binary'
import { testApp } from '../helpers/app'
import { createTenant } from '../helpers/fixtures'

/**
 * The one-liner end to end, as a machine runs it: curl the hub's install.sh into sh, which
 * downloads dist/vigil from the hub, checks its SHA-256, installs it and enrols (--no-systemd,
 * into a temp dir); then the installed executable runs as the agent and its samples reach the hub.
 */
const dataDir = tempDir('vigil-install-')
mkdirSync(join(dataDir, 'agents'))
// the tests run under bun, so the hub serves the dropped file (as an arm64 build would be)
symlinkSync(ensureBinary(), join(dataDir, 'agents', `vigil-linux-${process.arch}`))
const t = testApp({ clock: systemClock, config: { dataDir } })
/** each download the hub answered: its path, status and the bytes its body carried */
const served: { path: string; status: number; bytes: number }[] = []
const server = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(req) {
    const res = await t.handle(req)
    const path = new URL(req.url).pathname
    if (!path.startsWith('/download/')) return res
    const body = await res.arrayBuffer()
    served.push({ path, status: res.status, bytes: body.byteLength })
    return new Response(body, { status: res.status, headers: res.headers })
  },
})
const hub = `http://127.0.0.1:${server.port}`
afterAll(() => server.stop(true))

test('install.sh: download (gzip-compressed), checksum, install, enrol; then the agent reports', async () => {
  const a = await createTenant(t, { maxDevices: 5 })
  const made = await fetch(`${hub}/v1/enrolments`, { method: 'POST', headers: { ...a.userHeaders, 'content-type': 'application/json' }, body: '{}' })
  const { install_command, token } = (await made.json()) as { install_command: string; token: string }
  expect(install_command).toBe(`curl -fsSL ${hub}/install.sh | sudo sh -s -- --token ${token}`)

  const root = tempDir('vigil-root-')
  const bin = join(root, 'usr/local/bin/vigil')
  const state = join(root, 'var/lib/vigil-agent')
  // the command as given, without sudo and with the test's paths
  const line = `${install_command.replace('| sudo sh', '| sh')} --no-systemd --bin ${bin} --state-dir ${state}`
  const run = Bun.spawn(['sh', '-c', line], { stdout: 'pipe', stderr: 'pipe' })
  const [out, err] = [await new Response(run.stdout).text(), await new Response(run.stderr).text()]
  expect(await run.exited, `${out}\n${err}`).toBe(0)
  expect(out).toContain('enrolled')
  expect(statSync(bin).mode & 0o777).toBe(0o755)
  // the executable travelled gzip-compressed, about half its size, and was unpacked to the same bytes
  const size = statSync(ensureBinary()).size
  const download = served.filter((d) => d.path.startsWith(`/download/vigil-linux-${process.arch}`) && !d.path.endsWith('.sha256'))
  expect(download.map((d) => [d.path, d.status])).toEqual([[`/download/vigil-linux-${process.arch}.gz`, 200]])
  expect(download[0]!.bytes).toBeLessThan(size * 0.6)
  expect(new Bun.CryptoHasher('sha256').update(readFileSync(bin)).digest('hex')).toBe(
    new Bun.CryptoHasher('sha256').update(readFileSync(ensureBinary())).digest('hex'),
  )
  expect(statSync(join(state, 'key')).mode & 0o777).toBe(0o600)
  const { device_id } = JSON.parse(readFileSync(join(state, 'device.json'), 'utf8')) as { device_id: string }

  const agent = Bun.spawn([bin, 'agent', '--hub', hub, '--state-dir', state, '--interval', '1'], { stdout: 'ignore', stderr: 'pipe' })
  try {
    let total = 0
    for (let i = 0; i < 100 && total < 2; i++) {
      await Bun.sleep(100) // waiting for the real agent's ticks, not for time to pass in the hub
      const res = await fetch(`${hub}/v1/metrics/hardware/${device_id}?limit=10`, { headers: a.userHeaders })
      if (res.status === 200) total = ((await res.json()) as { total: number }).total
    }
    expect(total).toBeGreaterThanOrEqual(2)
  } finally {
    agent.kill('SIGTERM')
    await agent.exited
  }
}, 60_000)

test('a tampered checksum stops the install before anything is written', async () => {
  const root = tempDir('vigil-root-')
  const script = await (await fetch(`${hub}/install.sh`)).text()
  // a hub whose .sha256 does not match its executable
  const liar = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: (req) => (new URL(req.url).pathname.endsWith('.sha256') ? new Response(`${'0'.repeat(64)}  vigil\n`) : t.handle(req)),
  })
  try {
    const run = Bun.spawn(
      [
        'sh',
        '-s',
        '--',
        '--token',
        'vet_x',
        '--hub',
        `http://127.0.0.1:${liar.port}`,
        '--no-systemd',
        '--bin',
        join(root, 'vigil'),
        '--state-dir',
        join(root, 's'),
      ],
      {
        stdin: new Response(script),
        stdout: 'pipe',
        stderr: 'pipe',
      },
    )
    const err = await new Response(run.stderr).text()
    expect(await run.exited).toBe(1)
    expect(err).toContain('the download is damaged')
    expect(() => statSync(join(root, 'vigil'))).toThrow()
  } finally {
    liar.stop(true)
  }
}, 60_000)

test('install.sh is POSIX sh (sh -n, and shellcheck when installed) and carries the address it was fetched from', async () => {
  const script = await (await fetch(`${hub}/install.sh`)).text()
  expect(script).toContain(`HUB='${hub}'`)
  const path = join(tempDir('vigil-sh-'), 'install.sh')
  await Bun.write(path, script)
  expect(Bun.spawnSync(['sh', '-n', path]).exitCode).toBe(0)
  const shellcheck = Bun.which('shellcheck')
  if (!shellcheck) return console.log('skipped shellcheck: not installed (apt-get install shellcheck)')
  const checked = Bun.spawnSync([shellcheck, '-s', 'sh', path], { stdout: 'pipe' })
  expect(checked.stdout.toString()).toBe('')
  expect(checked.exitCode).toBe(0)
})

test('an architecture the hub has no executable for is a 404 saying where to put one, without the local path; no certificate over plain HTTP', async () => {
  const other = process.arch === 'x64' ? 'arm64' : 'x64'
  const res = await fetch(`${hub}/download/vigil-linux-${other}`)
  expect(res.status).toBe(404)
  const why = await res.text()
  expect(why).toContain(`DATA_DIR/agents/vigil-linux-${other}`)
  // an anonymous request learns no path of the hub's machine
  expect(why).not.toContain(dataDir)
  expect(why).toContain(`set VIGIL_AGENT_EXECUTABLE to an ${other} build`)
  expect((await fetch(`${hub}/download/vigil-linux-${other}.sha256`)).status).toBe(404)
  expect((await fetch(`${hub}/download/hub-certificate.pem`)).status).toBe(404)
  const sum = await (await fetch(`${hub}/download/vigil-linux-${process.arch}.sha256`)).text()
  expect(sum).toMatch(new RegExp(`^[0-9a-f]{64}  vigil-linux-${process.arch}\\n$`))
})
