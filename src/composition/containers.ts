import type { AppContext } from '../context'
import { deviceRef, markDeviceSeen } from '../modules/devices/devices.service'
import { observeSafely } from '../modules/alerts/alerts.rules.service'
import type { Observation } from '../modules/alerts/runtime/alerts.runtime-state'
import { type Applied, createContainersIngest, deviceGone } from '../modules/containers/containers.ingest'
import { createContainersIngestPg } from '../modules/containers/containers.ingest.pg'
import { createContainerRollups, type ContainerJobDeps } from '../modules/containers/containers.jobs'
import { observedContainers, observedContainersAsync } from '../modules/containers/containers.observe'
import { createContainerRollupsPg } from '../modules/containers/containers.rollup.pg'
import { CONTAINER_SOURCE } from '../modules/containers/containers.selectors'
import type { ContainersDeps } from '../modules/containers/containers.service'
import { createContainersStore, sqliteContainers } from '../modules/containers/containers.store'
import { createContainersStorePg } from '../modules/containers/containers.store.pg'
import { onEngine } from './engine'
import { ingestDisks, type DisksDeps } from '../modules/disks/disks.service'
import { DISK_SOURCE } from '../modules/disks/disks.selectors'
import type { Filled } from './ports'
import type { AlertingModules } from './alerting'
import { disksStoreOn, type FleetModules } from './fleet'
import type { Hooks } from './hooks'

/**
 * Containers and S.M.A.R.T. disks: they hear each batch's extra parts (the batchExtras hook),
 * store them, and hand what changed to the alert rules as `containers` and `disks` observations.
 */
export function wireContainers(ctx: AppContext, fleet: FleetModules, alerting: AlertingModules, hooks: Hooks) {
  const ref = (clientId: string, deviceId: string) => deviceRef(fleet.devices, clientId, deviceId)
  // last_seen_at at most once per device every few seconds, as the metrics writer does: every
  // collector sends a containers block with each sample, and a write per batch was a row per request
  const seenAt = new Map<number, number>()
  const seen = (deviceSeq: number) => {
    const now = ctx.clock.now()
    const last = seenAt.get(deviceSeq)
    if (last !== undefined && Math.abs(now - last) < SEEN_EVERY_MS) return
    seenAt.set(deviceSeq, now)
    markDeviceSeen(fleet.devices, deviceSeq, now)
  }
  const observe = (o: Observation) => void observeSafely(alerting.alerts, o)
  const observation = (a: Applied, values: ReturnType<typeof observedContainers>) =>
    observe({ clientId: a.clientId, deviceId: a.deviceId, source: CONTAINER_SOURCE, ts: a.ts, values })
  const { store, ingest, rollups } = onEngine(
    ctx,
    (db) => {
      // SQLite: the group commit and the rollups run the statements synchronously, in one transaction each
      const sync = sqliteContainers(db)
      return {
        store: createContainersStore(sync),
        ingest: createContainersIngest({ store: sync, clock: ctx.clock, seen, applied: (a) => observation(a, observedContainers(sync, a)) }),
        rollups: createContainerRollups({ store: sync, clock: ctx.clock }),
      }
    },
    (sql) => {
      const pgStore = createContainersStorePg(sql)
      const applied = (a: Applied) =>
        void observedContainersAsync(pgStore, a)
          .then((values) => observation(a, values))
          .catch((err: Error) => ctx.logger.error('alert evaluation failed', { client_id: a.clientId, device_id: a.deviceId, error: err.message }))
      return { store: pgStore, ingest: createContainersIngestPg({ sql, seen, applied }), rollups: createContainerRollupsPg({ sql, clock: ctx.clock }) }
    },
  )
  const containers: ContainersDeps = { store, clock: ctx.clock, devices: { ref } }
  const disks: Filled<DisksDeps, 'applied'> = {
    store: disksStoreOn(ctx),
    clock: ctx.clock,
    devices: { ref },
    seen,
    applied: (a) => observe({ clientId: a.clientId, deviceId: a.deviceId, source: DISK_SOURCE, ts: a.ts, values: { disks: a.disks } }),
  }
  const retention = ctx.config.metricsRetention
  const containerJobs: ContainerJobDeps = { store, clock: ctx.clock, retention: { raw: retention.raw, m1: retention.m1, h1: retention.h1 } }

  // a device's containers went with it (a cascade): its account's counts are counted again
  hooks.deviceDeleted.listen((clientId, deviceId) => {
    store.countsChanged(clientId)
    ingest.forget(deviceId)
  })
  hooks.batchExtras.listen((e) => {
    if (e.containers) {
      e.wait(
        ingest.submit({
          clientId: e.clientId,
          deviceId: e.device.id,
          deviceSeq: e.device.seq,
          ts: e.ts,
          sent: e.sent,
          block: e.containers,
          withSamples: e.withSamples,
        }),
      )
    }
    if (e.disks_smart) {
      const smart = e.disks_smart
      e.wait(
        Promise.resolve()
          .then(() => ingestDisks(disks, { clientId: e.clientId, deviceId: e.device.id, deviceSeq: e.device.seq, ts: e.ts, block: smart }))
          .catch((err) => {
            throw deviceGone(err)
          }),
      )
    }
  })
  return { containers, disks, containerJobs, containerRollups: rollups }
}

/** last_seen_at feeds a status with a 5-minute window: seconds of precision suffice (as metrics.writer.ts) */
const SEEN_EVERY_MS = 5_000

export type ContainerModules = ReturnType<typeof wireContainers>
