import { existsSync } from 'node:fs'
import type { Logger } from '../../../lib/logger'
import { type DisksSmart, isAsleep, isPermissionDenied, parseDevice, parseScan, scanDenied, SMART_BOUNDS, type SmartDevice } from './smart.parse'

/** Runs smartctl with these arguments: its stdout and exit code, or null when it did not run to the end (time limit). */
export type SmartRun = (args: string[]) => Promise<{ stdout: string; code: number } | null>

export interface SmartPollerDeps {
  /** null: smartctl is not installed */
  run: SmartRun | null
  /** monotonic ms */
  now: () => number
  log: Logger
  /** how often smartctl runs at most */
  everyMs?: number
}

export const SMART_EVERY_MS = 30 * 60_000

export const NO_SMARTCTL = 'smartctl not found: install smartmontools to report disk health'
export const SMART_DENIED = 'smartctl may not open the disks: it needs root or the CAP_SYS_RAWIO and CAP_SYS_ADMIN capabilities (see "Disks" in docs/agent.md)'
export const NO_SMART_DISKS = 'no disk here answers S.M.A.R.T. (virtual disks, and many USB bridges, do not)'

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}

/**
 * Disk health from smartctl, run beside sampling at most every 30 minutes (never inside a
 * sample: it is a child process per disk, each with a time limit), its result handed to the one
 * sample after the run as `disks_smart`. Disks asleep stay asleep (-n standby). Without smartctl,
 * or without the right to open the disks, it says so once in the log and once in a sample, and
 * then runs no more.
 */
export function createSmartPoller(deps: SmartPollerDeps) {
  const everyMs = deps.everyMs ?? SMART_EVERY_MS
  let ranAt = Number.NEGATIVE_INFINITY
  let running: Promise<void> | null = null
  let pending: DisksSmart | null = null
  /** it will not run again: no smartctl, not permitted, or no disk to read */
  let done = false

  function giveUp(reason: string, level: 'info' | 'warn'): void {
    done = true
    pending = { available: false, unavailable_reason: reason.slice(0, SMART_BOUNDS.reason), devices: [] }
    deps.log[level](`agent: disk health not read: ${reason}`)
  }

  async function runOnce(run: SmartRun): Promise<void> {
    const scan = await run(['--scan-open', '--json'])
    const scanned = scan ? parseScan(parse(scan.stdout)) : []
    if (!scan) return void deps.log.debug('agent: smartctl --scan-open did not finish')
    if (scanned.length && scanned.every(scanDenied)) return giveUp(SMART_DENIED, 'warn')
    const devices: SmartDevice[] = []
    let denied = 0
    let asleep = 0
    for (const d of scanned.filter((d) => !scanDenied(d)).slice(0, SMART_BOUNDS.devices)) {
      const out = await run(['-a', '--json', '-n', 'standby', ...(d.type ? ['-d', d.type] : []), d.name])
      const json = out ? parse(out.stdout) : null
      if (json && isPermissionDenied(json)) denied++
      else if (json && isAsleep(json)) asleep++
      const device = json ? parseDevice(json, d.name) : null
      if (device) devices.push(device)
      else if (!out) deps.log.debug('agent: smartctl did not finish', { device: d.name })
    }
    if (!devices.length && denied) return giveUp(SMART_DENIED, 'warn')
    if (!devices.length && !asleep) return giveUp(NO_SMART_DISKS, 'info')
    // only sleeping disks this round: nothing to send, try again next time
    if (devices.length) pending = { available: true, unavailable_reason: null, devices }
  }

  return {
    /** a result not yet sent (once), and the next run started in the background when due */
    latest(): DisksSmart | undefined {
      if (!deps.run && !done) giveUp(NO_SMARTCTL, 'info')
      if (deps.run && !done && !running && deps.now() - ranAt >= everyMs) {
        ranAt = deps.now()
        running = runOnce(deps.run)
          .catch((err) => deps.log.debug('agent: smartctl failed', { error: (err as Error).message }))
          .finally(() => (running = null))
      }
      const out = pending
      pending = null
      return out ?? undefined
    },
    /** resolves when a run in flight is done (tests) */
    settled: (): Promise<void> => running ?? Promise.resolve(),
  }
}

export type SmartPoller = ReturnType<typeof createSmartPoller>

/** smartctl on PATH (or in /usr/sbin, which a user's PATH may lack), each run limited to 60 s. */
export function systemSmartRun(): SmartRun | null {
  const bin = Bun.which('smartctl') ?? ['/usr/sbin/smartctl', '/sbin/smartctl'].find((p) => existsSync(p))
  if (!bin) return null
  return async (args) => {
    const proc = Bun.spawn([bin, ...args], { stdout: 'pipe', stderr: 'ignore', stdin: 'ignore', timeout: 60_000, killSignal: 'SIGKILL' })
    const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
    return proc.signalCode ? null : { stdout, code }
  }
}
