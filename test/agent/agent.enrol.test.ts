import { afterEach, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { enrolCommand } from '../../src/agent/agent.enrol'
import { AGENT_UNIT, agentInstall, agentUninstall, parseInstallArgs, renderAgentUnit } from '../../src/agent/agent.install'
import { testApp, type TestApp } from '../helpers/app'
import { createTenant } from '../helpers/fixtures'
import { hardwareSample } from '../helpers/samples'

const dirs: string[] = []
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'vigil-enrol-'))
  dirs.push(d)
  return d
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

/** A fake machine root: what readIdentity reads. */
function machineRoot(machineId: string) {
  const root = tmp()
  mkdirSync(join(root, 'etc'), { recursive: true })
  mkdirSync(join(root, 'proc/sys/kernel'), { recursive: true })
  writeFileSync(join(root, 'etc/machine-id'), `${machineId}\n`)
  writeFileSync(join(root, 'proc/sys/kernel/hostname'), 'pi-kitchen\n')
  return root
}

const viaApp = (t: TestApp) => ((input: string | URL | Request, init?: RequestInit) => t.handle(new Request(input as string, init))) as typeof fetch

async function token(t: TestApp, headers: Record<string, string>) {
  return (await t.request('POST', '/v1/enrolments', { body: {}, headers })).body.token as string
}

describe('vigil agent enrol', () => {
  test('keeps a bound key (0600) and device.json in the state dir; re-enrolling keeps the device', async () => {
    const t = testApp()
    const a = await createTenant(t, { maxDevices: 2 })
    const env = { VIGIL_AGENT_ROOT: machineRoot('m-1') }
    const state = tmp()
    expect(await enrolCommand(['--hub', 'http://localhost', '--token', await token(t, a.userHeaders), '--state-dir', state], env, viaApp(t))).toBe(0)
    const key = readFileSync(join(state, 'key'), 'utf8').trim()
    expect(statSync(join(state, 'key')).mode & 0o777).toBe(0o600)
    const device = JSON.parse(readFileSync(join(state, 'device.json'), 'utf8'))
    expect(device).toMatchObject({ hub: 'http://localhost', fingerprint: 'm-1' })
    const sent = await t.request('POST', '/v1/metrics/hardware', { body: hardwareSample(), headers: { 'x-api-key': key } })
    expect(sent.body.device_id).toBe(device.device_id)
    const listed = (await t.request('GET', '/v1/clients/me/devices', { headers: a.userHeaders })).body
    expect(listed).toHaveLength(1)
    expect(listed[0].hostname).toBe('pi-kitchen')

    expect(await enrolCommand(['--hub', 'http://localhost', '--token', await token(t, a.userHeaders), '--state-dir', state], env, viaApp(t))).toBe(0)
    expect(JSON.parse(readFileSync(join(state, 'device.json'), 'utf8')).device_id).toBe(device.device_id)
    expect(readFileSync(join(state, 'key'), 'utf8').trim()).not.toBe(key)
  })

  test('a spent token exits 1 and writes no key', async () => {
    const t = testApp()
    const a = await createTenant(t, { maxDevices: 2 })
    const env = { VIGIL_AGENT_ROOT: machineRoot('m-2') }
    const tok = await token(t, a.userHeaders)
    expect(await enrolCommand(['--hub', 'http://localhost', '--token', tok, '--state-dir', tmp()], env, viaApp(t))).toBe(0)
    const state = tmp()
    expect(await enrolCommand(['--hub', 'http://localhost', '--token', tok, '--state-dir', state], env, viaApp(t))).toBe(1)
    expect(() => readFileSync(join(state, 'key'))).toThrow()
  })

  test('usage errors exit 2', async () => {
    expect(await enrolCommand(['--hub', 'http://localhost'], {})).toBe(2)
    expect(await enrolCommand(['--hub', 'ftp://x', '--token', 't'], {})).toBe(2)
    expect(await enrolCommand(['--hub', 'http://x', '--token', 't', '--pin', 'sha256//x'], {})).toBe(2)
  })
})

describe('vigil agent install', () => {
  const fakeIo = (userExists = true, dockerGroup = true) => {
    const ran: string[][] = []
    const said: string[] = []
    return {
      ran,
      said,
      io: {
        run: (cmd: string[]) => {
          ran.push(cmd)
          return (cmd[0] === 'id' && !userExists) || (cmd[0] === 'getent' && !dockerGroup) ? 2 : 0
        },
        print: (l: string) => void said.push(l),
      },
    }
  }

  test('writes the hardened unit, field by field, creates the user and starts it', () => {
    const unitDir = tmp()
    const m = fakeIo(false)
    expect(agentInstall({ hub: 'https://hub.lan:8443', bin: '/usr/local/bin/vigil', unitDir, user: 'vigil-agent', start: true }, m.io)).toBe(0)
    const unit = readFileSync(join(unitDir, AGENT_UNIT), 'utf8')
    const fields = new Map(
      unit
        .split('\n')
        .filter((l) => l.includes('=') && !l.startsWith('#'))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    )
    expect(fields.get('ExecStart')).toBe('/usr/local/bin/vigil agent --hub https://hub.lan:8443')
    expect(fields.get('User')).toBe('vigil-agent')
    expect(fields.get('StateDirectory')).toBe('vigil-agent')
    const environment = unit.split('\n').filter((l) => l.startsWith('Environment='))
    // the collector's key and queue location, and the interpreter-only JS engine (its memory footprint)
    expect(environment).toEqual(['Environment=VIGIL_AGENT_STATE_DIR=/var/lib/vigil-agent', 'Environment=BUN_JSC_useJIT=0'])
    expect(fields.get('Restart')).toBe('always')
    expect(fields.get('ProtectSystem')).toBe('strict')
    expect(fields.get('ProtectHome')).toBe('read-only')
    expect(fields.get('NoNewPrivileges')).toBe('yes')
    expect(fields.get('CapabilityBoundingSet')).toBe('')
    expect(fields.get('WantedBy')).toBe('multi-user.target')
    expect(m.ran.map((c) => c.join(' '))).toEqual([
      'getent group docker',
      'id -u vigil-agent',
      'useradd --system --user-group --home-dir /var/lib/vigil-agent --no-create-home --shell /usr/sbin/nologin vigil-agent',
      'systemctl daemon-reload',
      `systemctl enable --now ${AGENT_UNIT}`,
    ])
  })

  test('the docker group only where the machine has one; the access smartctl needs only with --smart', () => {
    const unitDir = tmp()
    const lines = () => readFileSync(join(unitDir, AGENT_UNIT), 'utf8').split('\n')
    const withDocker = fakeIo()
    agentInstall({ hub: 'http://hub:8080', bin: '/usr/local/bin/vigil', unitDir, user: 'vigil-agent', start: false }, withDocker.io)
    expect(lines().filter((l) => l.startsWith('SupplementaryGroups=') || l.includes('Capabilit'))).toEqual([
      'SupplementaryGroups=docker',
      'CapabilityBoundingSet=',
      'AmbientCapabilities=',
    ])
    const noDocker = fakeIo(true, false)
    agentInstall({ hub: 'http://hub:8080', bin: '/usr/local/bin/vigil', unitDir, user: 'vigil-agent', start: false, smart: true }, noDocker.io)
    expect(lines().filter((l) => l.startsWith('SupplementaryGroups=') || l.includes('Capabilit'))).toEqual([
      'SupplementaryGroups=disk',
      'CapabilityBoundingSet=CAP_SYS_RAWIO CAP_SYS_ADMIN',
      'AmbientCapabilities=CAP_SYS_RAWIO CAP_SYS_ADMIN',
    ])
    expect(noDocker.said).toContain('disk health on: the collector runs with group disk and CAP_SYS_RAWIO CAP_SYS_ADMIN (see docs/agent.md, "Disks")')
    expect(parseInstallArgs(['--hub', 'http://h', '--smart'])).toMatchObject({ smart: true })
    expect(parseInstallArgs(['--hub', 'http://h'])).not.toHaveProperty('smart')
  })

  test('--no-start runs no systemctl; uninstall removes the unit', () => {
    const unitDir = tmp()
    const m = fakeIo()
    agentInstall({ hub: 'http://hub:8080', bin: '/usr/local/bin/vigil', unitDir, user: 'vigil-agent', start: false }, m.io)
    expect(m.ran.some((c) => c[0] === 'systemctl')).toBe(false)
    expect(agentUninstall({ unitDir, start: true }, m.io)).toBe(0)
    expect(() => statSync(join(unitDir, AGENT_UNIT))).toThrow()
    expect(m.ran.map((c) => c.join(' '))).toContain(`systemctl disable --now ${AGENT_UNIT}`)
  })

  test('passes systemd-analyze verify', () => {
    const tool = Bun.which('systemd-analyze')
    if (!tool) return console.log('skipped: systemd-analyze is not installed (apt-get install systemd)')
    const unitDir = tmp()
    writeFileSync(join(unitDir, AGENT_UNIT), renderAgentUnit({ hub: 'http://hub:8080', bin: process.execPath, user: 'root' }, { docker: true, smart: true }))
    const verify = Bun.spawnSync([tool, 'verify', join(unitDir, AGENT_UNIT)], { stderr: 'pipe', stdout: 'pipe' })
    const said = verify.stderr.toString() + verify.stdout.toString()
    expect(said.split('\n').filter((l) => l.includes(AGENT_UNIT))).toEqual([])
    expect(verify.exitCode).toBe(0)
  })
})
