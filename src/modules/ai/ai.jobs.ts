import { Cron } from 'croner'
import { yieldToRequests } from '../../lib/yield'
import { IN_UTC } from '../../jobs/scheduler'
import { DEFAULT_SCHEDULE } from './ai.config.service'
import { generateForDevice, type AiDeps } from './ai.service'

/** Is a client's schedule due, given when it last ran (never: due now)? */
export function isDue(schedule: string, lastRunAt: number | null, now: number): boolean {
  if (lastRunAt === null) return true
  try {
    const next = new Cron(schedule, { ...IN_UTC, paused: true }).nextRun(new Date(lastRunAt))
    return next !== null && next.getTime() <= now
  } catch {
    return false // a pattern that no longer parses never runs (it was validated when saved)
  }
}

/**
 * One pass: every client with devices whose schedule is due and whose AI is enabled gets a
 * generation per device, once across hubs (claimRun). The rules run even when the
 * language-model budget is spent. `pause` comes between two devices (default a turn of the event
 * loop): on SQLite each device's reads and rules run without giving the event loop a turn, and a
 * pass over 20 devices with a month of samples each held it 144 ms in one piece.
 */
export async function runDueGenerations(deps: AiDeps, pause: () => Promise<void> = yieldToRequests): Promise<{ clients: number; devices: number }> {
  let clients = 0
  let devices = 0
  for (const c of await deps.store.scheduleOf(await deps.devices.clients())) {
    const now = deps.clock.now()
    if (c.enabled === 0) continue
    if (!isDue(c.schedule ?? DEFAULT_SCHEDULE, c.last_run_at, now)) continue
    // claimed first: a run that fails half-way waits for the next slot instead of retrying every
    // minute, and of two hubs running this pass at once only one generates for the client
    if (!(await deps.store.claimRun(c.client_id, c.last_run_at, now))) continue
    clients++
    for (const deviceId of await deps.devices.ids(c.client_id)) {
      await pause()
      try {
        await generateForDevice(deps, c.client_id, deviceId, { onBudget: 'skip' })
        devices++
      } catch (err) {
        deps.logger.error('recommendation generation failed', { client_id: c.client_id, device_id: deviceId, error: (err as Error).message })
      }
    }
  }
  return { clients, devices }
}
