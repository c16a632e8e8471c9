import { describe, expect, test } from 'bun:test'
import { copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { installCommand, uninstallCommand, type InstallIo, type InstallOptions } from '../../src/cli/install'
import { tempDirs } from '../helpers/temp-dirs'

const tempDir = tempDirs('vigil-install-')

function machine(opts: { userExists?: boolean } = {}) {
  const root = tempDir()
  const exec = join(root, 'build', 'vigil')
  Bun.spawnSync(['mkdir', '-p', join(root, 'build')])
  copyFileSync('/bin/true', exec)
  const ran: string[][] = []
  const printed: string[] = []
  const io: InstallIo = {
    execPath: exec,
    run: (cmd) => {
      ran.push(cmd)
      return cmd[0] === 'id' && !opts.userExists ? 1 : 0
    },
    print: (l) => void printed.push(l),
  }
  const o: InstallOptions = { unitDir: join(root, 'systemd'), envFile: join(root, 'etc/vigil.env'), bin: join(root, 'bin/vigil'), user: 'vigil', now: false }
  return { root, exec, io, o, ran, printed, unit: join(root, 'systemd/vigil.service') }
}

/** key=value lines of one section of a unit file */
function section(unit: string, name: string): Map<string, string> {
  const body = unit.split(/^\[/m).find((s) => s.startsWith(`${name}]`))!
  return new Map(
    body
      .split('\n')
      .slice(1)
      .filter((l) => l.includes('=') && !l.startsWith('#'))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  )
}

describe('vigil install', () => {
  test('writes a hardened unit, field by field', () => {
    const m = machine()
    expect(installCommand(m.o, m.io)).toBe(0)
    const unit = readFileSync(m.unit, 'utf8')
    const service = section(unit, 'Service')
    expect(Object.fromEntries(service)).toMatchObject({
      Type: 'simple',
      User: 'vigil',
      Group: 'vigil',
      ExecStart: `${m.o.bin} serve --data-dir /var/lib/vigil`,
      EnvironmentFile: `-${m.o.envFile}`,
      StateDirectory: 'vigil',
      StateDirectoryMode: '0700',
      UMask: '0077',
      Restart: 'on-failure',
      NoNewPrivileges: 'yes',
      ProtectSystem: 'strict',
      ProtectHome: 'yes',
      PrivateTmp: 'yes',
      RestrictAddressFamilies: 'AF_INET AF_INET6 AF_UNIX',
      CapabilityBoundingSet: '',
    })
    expect(service.has('MemoryDenyWriteExecute')).toBe(false) // the JIT needs it off
    expect(section(unit, 'Install').get('WantedBy')).toBe('multi-user.target')
    expect(section(unit, 'Unit').get('After')).toBe('network-online.target')
    expect(statSync(m.unit).mode & 0o777).toBe(0o644)
  })

  test('installs the executable, a settings file (kept on a second run) and the user; prints the next commands', () => {
    const m = machine()
    installCommand(m.o, m.io)
    expect(statSync(m.o.bin).mode & 0o777).toBe(0o755)
    expect(statSync(m.o.envFile).mode & 0o777).toBe(0o600)
    expect(readFileSync(m.o.envFile, 'utf8')).toContain('VIGIL_PORT=8080')
    expect(m.ran).toContainEqual([
      'useradd',
      '--system',
      '--user-group',
      '--home-dir',
      '/var/lib/vigil',
      '--no-create-home',
      '--shell',
      '/usr/sbin/nologin',
      'vigil',
    ])
    expect(m.ran.some((c) => c[0] === 'systemctl')).toBe(false) // only with --now
    expect(m.printed).toContain('next: systemctl daemon-reload && systemctl enable --now vigil')
    writeFileSync(m.o.envFile, 'VIGIL_PORT=9000\n')
    const again = machine({ userExists: true })
    installCommand({ ...m.o }, { ...again.io, execPath: m.o.bin })
    expect(readFileSync(m.o.envFile, 'utf8')).toBe('VIGIL_PORT=9000\n')
    expect(again.ran.some((c) => c[0] === 'useradd')).toBe(false)
  })

  test('--now starts it with systemctl', () => {
    const m = machine({ userExists: true })
    installCommand({ ...m.o, now: true }, m.io)
    expect(m.ran.filter((c) => c[0] === 'systemctl')).toEqual([
      ['systemctl', 'daemon-reload'],
      ['systemctl', 'enable', '--now', 'vigil'],
    ])
  })

  test('refuses to install bun itself, and says to build first', () => {
    const m = machine()
    expect(() => installCommand(m.o, { ...m.io, execPath: '/usr/local/bin/bun' })).toThrow('run "bun run build", then "sudo ./dist/vigil install"')
  })

  test('a unit directory it may not write says to use sudo', () => {
    if (process.getuid?.() === 0) return console.log('skipped: root may write anywhere')
    const m = machine()
    expect(() => installCommand({ ...m.o, unitDir: '/proc/vigil' }, m.io)).toThrow(/run "sudo vigil install"/)
  })

  test('passes systemd-analyze verify', () => {
    const tool = Bun.which('systemd-analyze')
    if (!tool) return console.log('skipped: systemd-analyze is not installed (apt-get install systemd)')
    const m = machine({ userExists: true })
    installCommand(m.o, m.io)
    const verify = Bun.spawnSync([tool, 'verify', m.unit], { stderr: 'pipe', stdout: 'pipe' })
    const said = verify.stderr.toString() + verify.stdout.toString()
    // outside a booted systemd it may note that it cannot reach the manager; the unit itself must draw no complaint
    expect(said.split('\n').filter((l) => l.includes('vigil.service'))).toEqual([])
    expect(verify.exitCode).toBe(0)
    // systemd's own hardening score: 3.2 "OK" when written (0 is locked down, 10 unprotected)
    const security = Bun.spawnSync([tool, 'security', '--offline=yes', m.unit], { stderr: 'pipe', stdout: 'pipe' }).stdout.toString()
    const exposure = Number(/Overall exposure level for vigil\.service: ([\d.]+)/.exec(security)?.[1])
    expect(exposure).toBeLessThan(4)
  })
})

describe('vigil uninstall', () => {
  test('removes the unit and keeps the data, settings and executable', () => {
    const m = machine({ userExists: true })
    installCommand(m.o, m.io)
    expect(uninstallCommand(m.o, m.io)).toBe(0)
    expect(existsSync(m.unit)).toBe(false)
    expect(existsSync(m.o.envFile)).toBe(true)
    expect(existsSync(m.o.bin)).toBe(true)
    expect(m.printed.at(-1)).toContain('kept: the data in /var/lib/vigil')
    expect(uninstallCommand(m.o, m.io)).toBe(0) // twice is fine
    expect(m.printed.at(-1)).toContain('nothing to remove')
  })
})
