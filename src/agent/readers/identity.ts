import { readLine, readText } from '../agent.fs'

export interface Identity {
  hostname: string
  os: string
  os_version: string
  arch: string
  fingerprint: string | null
}

const ARCH: Record<string, string> = { x64: 'x86_64', arm64: 'aarch64' }

/**
 * What the agent registers its device with. The fingerprint is the machine id systemd or
 * D-Bus wrote at install time: stable across reboots and agent reinstalls, so re-running
 * the install finds the same device. os_version is the distribution's name and version
 * (/etc/os-release), else the kernel release.
 */
export function readIdentity(root: string, arch: string = process.arch): Identity {
  const osRelease = readText(root, 'etc/os-release') ?? readText(root, 'usr/lib/os-release') ?? ''
  const pretty = /^PRETTY_NAME="?([^"\n]*)"?/m.exec(osRelease)?.[1]
  const kernel = readLine(root, 'proc/sys/kernel/osrelease')
  const id = readLine(root, 'etc/machine-id') || readLine(root, 'var/lib/dbus/machine-id') || null
  return {
    hostname: readLine(root, 'proc/sys/kernel/hostname') || 'localhost',
    os: 'linux',
    os_version: [pretty, kernel && `kernel ${kernel}`].filter(Boolean).join(', ') || 'unknown',
    arch: ARCH[arch] ?? arch,
    fingerprint: id,
  }
}
