import { chmodSync, copyFileSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { StartupError } from './errors'
import { ensureSystemUser, KERNEL_PROTECTION, RESTRICTIONS_AND_INSTALL, runCommand, unitHead } from '../lib/systemd'

export interface InstallOptions {
  /** where the unit goes: /etc/systemd/system */
  unitDir: string
  /** the settings file the unit reads: /etc/vigil/vigil.env */
  envFile: string
  /** where the executable is installed: /usr/local/bin/vigil */
  bin: string
  /** the service's system user, created when missing */
  user: string
  /** run systemctl daemon-reload and enable --now (uninstall: disable --now) */
  now: boolean
}

export const INSTALL_DEFAULTS: InstallOptions = {
  unitDir: '/etc/systemd/system',
  envFile: '/etc/vigil/vigil.env',
  bin: '/usr/local/bin/vigil',
  user: 'vigil',
  now: false,
}

/** What the commands need from the machine; tests pass fakes. */
export interface InstallIo {
  /** the running executable */
  execPath: string
  /** runs a command, returns its exit code */
  run(cmd: string[]): number
  print(line: string): void
}

const STATE_DIR = '/var/lib/vigil'

/**
 * A hardened unit: its own system user, the data in StateDirectory (/var/lib/vigil, made and
 * owned by systemd), the rest of the file system read-only, no privilege gain. No
 * MemoryDenyWriteExecute: the JavaScript engine's JIT needs writable code pages. No
 * ExecStartPost health probe: after an unclean stop the start-up integrity check can take
 * minutes, and a probe that gave up would restart the service in a loop.
 */
export function renderUnit(o: Pick<InstallOptions, 'bin' | 'envFile' | 'user'>): string {
  return `# Written by "vigil install"; "vigil uninstall" removes it. Settings: ${o.envFile}
${unitHead('Vigil infrastructure monitoring', o.user)}
ExecStart=${o.bin} serve --data-dir ${STATE_DIR}
EnvironmentFile=-${o.envFile}
Environment=VIGIL_LOG_FORMAT=json
StateDirectory=vigil
StateDirectoryMode=0700
UMask=0077
Restart=on-failure
RestartSec=5s
TimeoutStopSec=60s
LimitNOFILE=65536

NoNewPrivileges=yes
ProtectSystem=strict
ProtectHome=yes
PrivateTmp=yes
PrivateDevices=yes
${KERNEL_PROTECTION}
RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX
${RESTRICTIONS_AND_INSTALL}`
}

const ENV_TEMPLATE = `# Vigil's settings for vigil.service, one VAR=value per line (docs/operations.md lists them).
# After a change: systemctl restart vigil
VIGIL_HOST=0.0.0.0
VIGIL_PORT=8080
# VIGIL_SITE_URL=https://vigil.example.com
# VIGIL_TLS_CERT=/etc/vigil/cert.pem
# VIGIL_TLS_KEY=/etc/vigil/key.pem
# Backups: daily at 03:47 UTC into /var/lib/vigil/backups, the last 7 kept.
# VIGIL_BACKUP_SCHEDULE=47 3 * * *
# VIGIL_BACKUP_KEEP=7
# A VIGIL_BACKUP_DIR outside /var/lib/vigil must also be writable by the unit:
#   systemctl edit vigil   ->   [Service] ReadWritePaths=/srv/backups
`

const unitPath = (o: InstallOptions) => join(o.unitDir, 'vigil.service')

/** Permission refusals become one line that says to use sudo. */
function asRoot<T>(what: string, step: () => T): T {
  try {
    return step()
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
      throw new StartupError(`cannot ${what} (${code}): run "sudo vigil install" (or pass --unit-dir, --env-file and --bin to write elsewhere)`)
    throw err
  }
}

/** `vigil install`: the executable, the unit, a settings file and the user; then the commands to start it. */
export function installCommand(o: InstallOptions, io: InstallIo): number {
  const exec = resolve(io.execPath)
  if (/^bun(-debug)?$/.test(basename(exec))) {
    throw new StartupError('install the built executable, not the source: run "bun run build", then "sudo ./dist/vigil install"')
  }
  const bin = resolve(o.bin)
  if (exec !== bin) {
    // the unit must not run a file in a home directory (ProtectHome hides it) or a build folder
    asRoot(`install the executable at ${bin}`, () => {
      mkdirSync(dirname(bin), { recursive: true })
      const tmp = `${bin}.new`
      copyFileSync(exec, tmp)
      chmodSync(tmp, 0o755)
      renameSync(tmp, bin)
    })
    io.print(`installed ${exec} as ${bin}`)
  }
  if (!existsSync(o.envFile)) {
    asRoot(`write ${o.envFile}`, () => {
      mkdirSync(dirname(o.envFile), { recursive: true, mode: 0o755 })
      writeFileSync(o.envFile, ENV_TEMPLATE, { mode: 0o600 }) // it may come to hold secrets (VIGIL_JWT_SECRET)
    })
    io.print(`wrote ${o.envFile} (settings; edit it, then restart the service)`)
  } else io.print(`kept ${o.envFile}`)
  asRoot(`write ${unitPath(o)}`, () => {
    mkdirSync(o.unitDir, { recursive: true })
    writeFileSync(unitPath(o), renderUnit({ ...o, bin }), { mode: 0o644 })
  })
  io.print(`wrote ${unitPath(o)}`)
  const user = ensureSystemUser(io.run, o.user, STATE_DIR)
  if (user.code !== 0)
    throw new StartupError(`could not create the system user ${o.user} (useradd exited ${user.code}); create it yourself and run "vigil install" again`)
  if (user.created) io.print(`created the system user ${o.user}`)
  if (o.now) {
    systemctl(io, ['daemon-reload'])
    systemctl(io, ['enable', '--now', 'vigil'])
    io.print('vigil is running: systemctl status vigil; logs: journalctl -u vigil')
  } else {
    io.print('next: systemctl daemon-reload && systemctl enable --now vigil')
  }
  io.print(`then: sudo -u ${o.user} ${bin} admin create --email you@example.com --password-stdin --data-dir ${STATE_DIR}`)
  return 0
}

/** `vigil uninstall`: removes the unit; the data, the settings, the executable and the user stay. */
export function uninstallCommand(o: InstallOptions, io: InstallIo): number {
  const path = unitPath(o)
  if (!existsSync(path)) {
    io.print(`no unit at ${path}: nothing to remove`)
    return 0
  }
  if (o.now) systemctl(io, ['disable', '--now', 'vigil'])
  asRoot(`remove ${path}`, () => rmSync(path))
  io.print(`removed ${path}`)
  if (o.now) systemctl(io, ['daemon-reload'])
  else io.print('next: systemctl disable --now vigil; systemctl daemon-reload (if it was running)')
  io.print(`kept: the data in ${STATE_DIR}, the settings in ${o.envFile}, ${o.bin} and the user ${o.user}; remove them yourself if you are done with them`)
  return 0
}

function systemctl(io: InstallIo, args: string[]) {
  const code = io.run(['systemctl', ...args])
  if (code !== 0) throw new StartupError(`systemctl ${args.join(' ')} exited ${code}; see journalctl -u vigil, fix, then run it again`)
}

/** The real machine: commands inherit the terminal, so their own messages reach the operator. */
export const systemIo: InstallIo = {
  execPath: process.execPath,
  run: runCommand,
  print: (line) => console.log(line),
}
