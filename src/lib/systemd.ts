/**
 * What the hub's and the collector's systemd units share: the kernel, namespaces, realtime and
 * capabilities closed off, and how they are enabled. Each unit adds what differs (its
 * filesystem view, its address families, devices).
 */
/** A unit's start: what it is, after the network is up, run as its own user. */
export const unitHead = (description: string, user: string) => `[Unit]
Description=${description}
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
User=${user}
Group=${user}`

export const KERNEL_PROTECTION = `ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectClock=yes
ProtectHostname=yes`

export const RESTRICTIONS_AND_INSTALL = `RestrictNamespaces=yes
RestrictRealtime=yes
RestrictSUIDSGID=yes
LockPersonality=yes
SystemCallArchitectures=native
CapabilityBoundingSet=
AmbientCapabilities=

[Install]
WantedBy=multi-user.target
`

/** Creates a system user (and its group) that cannot log in, unless it exists; the exit code of the failing step, or 0. */
export function ensureSystemUser(run: (argv: string[]) => number, user: string, home: string): { code: number; created: boolean } {
  if (run(['id', '-u', user]) === 0) return { code: 0, created: false }
  const code = run(['useradd', '--system', '--user-group', '--home-dir', home, '--no-create-home', '--shell', '/usr/sbin/nologin', user])
  return { code, created: code === 0 }
}

/** Runs a command on the real machine, its own messages reaching the operator's terminal; 127 when it is not installed. */
export function runCommand(cmd: string[]): number {
  try {
    return Bun.spawnSync(cmd, { stdout: 'ignore', stderr: 'inherit' }).exitCode ?? 1
  } catch {
    return 127
  }
}
