import type { Applied } from './containers.ingest'
import { memoryPercent } from './containers.service'
import type { ContainersStore } from './containers.store'

/** the restarts per container of a device since a time, read synchronously (SQLite's statements) */
type Restarts = { restartsSince(deviceId: string, since: number): Map<number, number> }

/** The window of the `:restarts` selector: restarts counted over the last 15 minutes. */
export const RESTART_WINDOW_MS = 15 * 60_000

/** One container as the alert rules read it (the `containers` source's values). */
export interface ObservedContainer {
  name: string
  labels: Record<string, string>
  running: number
  unhealthy: number
  /** the exit code while exited or dead, else 0: a container running again is healthy */
  exit_code: number
  restarts: number
  oom_killed: number
  /** 1 for a container gone while it was running */
  missing: number
  cpu_percent: number | null
  memory_percent: number | null
}

/** The values of a `containers` observation: every container the device has (gone ones as missing). */
export function observedContainers(store: Restarts, a: Applied): { containers: ObservedContainer[] } {
  // a host without containers (most collectors send an empty block every sample): no query
  if (!a.rows.length) return { containers: [] }
  const restarts = store.restartsSince(a.deviceId, a.ts - RESTART_WINDOW_MS)
  return {
    containers: a.rows.map((r) => {
      const stopped = r.state === 'exited' || r.state === 'dead'
      return {
        name: r.name,
        labels: JSON.parse(r.labels) as Record<string, string>,
        running: r.state === 'running' ? 1 : 0,
        unhealthy: r.health === 'unhealthy' && r.state !== 'gone' ? 1 : 0,
        exit_code: stopped ? (r.exit_code ?? 0) : 0,
        restarts: restarts.get(r.seq) ?? 0,
        oom_killed: r.oom_killed && r.state !== 'gone' ? 1 : 0,
        // a stopped container removed is housekeeping, not an outage
        missing: r.state === 'gone' && r.gone_running === 1 ? 1 : 0,
        cpu_percent: r.cpu_percent,
        memory_percent: memoryPercent(r),
      }
    }),
  }
}

/** The same, with the restarts read through the asynchronous store (PostgreSQL). */
export async function observedContainersAsync(store: Pick<ContainersStore, 'restartsSince'>, a: Applied): Promise<{ containers: ObservedContainer[] }> {
  if (!a.rows.length) return { containers: [] }
  const restarts = await store.restartsSince(a.deviceId, a.ts - RESTART_WINDOW_MS)
  return observedContainers({ restartsSince: () => restarts }, a)
}
