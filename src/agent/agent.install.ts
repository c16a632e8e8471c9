import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { DEFAULT_STATE_DIR } from './agent.config'
import { ensureSystemUser, KERNEL_PROTECTION, RESTRICTIONS_AND_INSTALL, runCommand, unitHead } from '../lib/systemd'

export const AGENT_UNIT = 'vigil-agent.service'

export interface AgentInstallOptions {
  hub: string
  /** the executable the unit runs */
  bin: string
  unitDir: string
  user: string
  /** run systemctl daemon-reload and enable --now (uninstall: disable --now) */
  start: boolean
  /** opt-in: the access smartctl needs to read disk health (see SMART_ACCESS) */
  smart?: boolean
}

/** What the unit grants beyond the hardened defaults; each entry is decided at install time. */
export interface UnitAccess {
  /** the docker group, when this machine has one: read access to the engine's socket */
  docker?: boolean
  smart?: boolean
}

/**
 * What smartctl needs to ask a disk for its health as a user other than root: to open the
 * device nodes (group disk) and to send it ATA/SCSI pass-through (CAP_SYS_RAWIO) and NVMe admin
 * commands (CAP_SYS_ADMIN). Both are close to root: off unless asked for (--smart).
 */
export const SMART_ACCESS = { group: 'disk', capabilities: 'CAP_SYS_RAWIO CAP_SYS_ADMIN' }

/** What the commands need from the machine; tests pass fakes. */
export interface AgentInstallIo {
  run(cmd: string[]): number
  print(line: string): void
}

/**
 * The environment the installed collector runs with. JavaScriptCore's JIT is off: a sample is a
 * few hundred small file reads every 10 s, which the interpreter does in a few milliseconds,
 * while the JIT's compilers, once woken by those loops, keep about 4 MB of their own code and
 * memory resident for the life of the process.
 */
export const AGENT_RUNTIME_ENV: Record<string, string> = { BUN_JSC_useJIT: '0' }

export const AGENT_INSTALL_DEFAULTS = { bin: '/usr/local/bin/vigil', unitDir: '/etc/systemd/system', user: 'vigil-agent' }

/**
 * A hardened unit for the collector: its own system user, its key and queue in StateDirectory
 * (made and chowned by systemd, so files `vigil agent enrol` wrote as root become the user's),
 * the whole file system read-only. Not hidden from it, because they are what it measures:
 * other users' processes (no ProtectProc, for the top processes), /home (read-only, not
 * ProtectHome=yes, so its filesystem is still counted) and /dev (no PrivateDevices: GPU tools).
 * Restart=always: a collector that exits for any reason should come back.
 */
export function renderAgentUnit(o: Pick<AgentInstallOptions, 'hub' | 'bin' | 'user'>, access: UnitAccess = {}): string {
  const groups = [...(access.docker ? ['docker'] : []), ...(access.smart ? [SMART_ACCESS.group] : [])]
  const unit = `# Written by "vigil agent install"; "vigil agent uninstall" removes it.
${unitHead(`Vigil collector (vigil agent) reporting to ${o.hub}`, o.user)}
ExecStart=${o.bin} agent --hub ${o.hub}
Environment=VIGIL_AGENT_STATE_DIR=${DEFAULT_STATE_DIR}
${Object.entries(AGENT_RUNTIME_ENV)
  .map(([k, v]) => `Environment=${k}=${v}`)
  .join('\n')}
StateDirectory=vigil-agent
StateDirectoryMode=0700
UMask=0077
Restart=always
RestartSec=5s
TimeoutStopSec=30s

NoNewPrivileges=yes
ProtectSystem=strict
ProtectHome=read-only
PrivateTmp=yes
${KERNEL_PROTECTION}
RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX AF_NETLINK
${groups.length ? `SupplementaryGroups=${groups.join(' ')}\n` : ''}${RESTRICTIONS_AND_INSTALL}`
  if (!access.smart) return unit
  // the hardened default grants no capability at all; smartctl (run as a child) inherits these
  const none = 'CapabilityBoundingSet=\nAmbientCapabilities=\n'
  if (!unit.includes(none)) throw new Error('the unit no longer has its empty capability lines')
  return unit.replace(none, `CapabilityBoundingSet=${SMART_ACCESS.capabilities}\nAmbientCapabilities=${SMART_ACCESS.capabilities}\n`)
}

const denied = (err: unknown) => ['EACCES', 'EPERM', 'EROFS'].includes((err as NodeJS.ErrnoException).code ?? '')

/** `vigil agent install`: the user, the unit, then start it (unless start is false). Returns the exit code. */
export function agentInstall(o: AgentInstallOptions, io: AgentInstallIo): number {
  const path = join(o.unitDir, AGENT_UNIT)
  // the docker group only where it exists: a unit naming a missing group would not start
  const docker = io.run(['getent', 'group', 'docker']) === 0
  try {
    mkdirSync(o.unitDir, { recursive: true })
    writeFileSync(path, renderAgentUnit(o, { docker, smart: o.smart }), { mode: 0o644 })
  } catch (err) {
    if (!denied(err)) throw err
    io.print(`vigil: cannot write ${path}: run it as root (sudo vigil agent install …)`)
    return 1
  }
  io.print(`wrote ${path}`)
  if (docker) io.print('the collector may read the Docker socket (group docker): it only reads, see docs/agent.md')
  if (o.smart) io.print(`disk health on: the collector runs with group ${SMART_ACCESS.group} and ${SMART_ACCESS.capabilities} (see docs/agent.md, "Disks")`)
  const user = ensureSystemUser(io.run, o.user, DEFAULT_STATE_DIR)
  if (user.code !== 0) {
    io.print(`vigil: could not create the system user ${o.user} (useradd exited ${user.code}); create it and run "vigil agent install" again`)
    return 1
  }
  if (user.created) io.print(`created the system user ${o.user}`)
  if (!o.start) {
    io.print(`next: systemctl daemon-reload && systemctl enable --now ${AGENT_UNIT}`)
    return 0
  }
  for (const args of [['daemon-reload'], ['enable', '--now', AGENT_UNIT]]) {
    const code = io.run(['systemctl', ...args])
    if (code !== 0) {
      io.print(`vigil: systemctl ${args.join(' ')} exited ${code}; see journalctl -u ${AGENT_UNIT}`)
      return 1
    }
  }
  io.print(`the collector is running: systemctl status ${AGENT_UNIT}; logs: journalctl -u ${AGENT_UNIT}`)
  return 0
}

/** `vigil agent uninstall`: stops and removes the unit; the state dir (key, queue), the user and the executable stay. */
export function agentUninstall(o: Pick<AgentInstallOptions, 'unitDir' | 'start'>, io: AgentInstallIo): number {
  const path = join(o.unitDir, AGENT_UNIT)
  if (!existsSync(path)) {
    io.print(`no unit at ${path}: nothing to remove`)
    return 0
  }
  if (o.start) io.run(['systemctl', 'disable', '--now', AGENT_UNIT])
  try {
    rmSync(path)
  } catch (err) {
    if (!denied(err)) throw err
    io.print(`vigil: cannot remove ${path}: run it as root`)
    return 1
  }
  io.print(`removed ${path}`)
  if (o.start) io.run(['systemctl', 'daemon-reload'])
  io.print(`kept: ${DEFAULT_STATE_DIR} (the key and any queued samples), the user and the executable`)
  return 0
}

export const systemAgentIo: AgentInstallIo = {
  run: runCommand,
  print: (line) => console.log(line),
}

/** Parses `vigil agent install|uninstall` options. */
export function parseInstallArgs(args: string[]): AgentInstallOptions | string {
  const o: AgentInstallOptions = { hub: '', ...AGENT_INSTALL_DEFAULTS, start: true }
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === '--no-start') {
      o.start = false
      continue
    }
    if (arg === '--smart') {
      o.smart = true
      continue
    }
    const m = /^--(hub|bin|unit-dir|user)(?:=(.*))?$/.exec(arg)
    if (!m) return `unknown option "${arg}"`
    const value = m[2] ?? args[++i]
    if (value === undefined) return `--${m[1]} needs a value`
    if (m[1] === 'hub') o.hub = value
    else if (m[1] === 'bin') o.bin = value
    else if (m[1] === 'unit-dir') o.unitDir = value
    else o.user = value
  }
  return o
}
