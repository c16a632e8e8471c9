import { t, type Static } from 'elysia'
import { Type } from '@sinclair/typebox'

const figure = () => t.Nullable(t.Number())

/** one rule for a device's status: the devices domain's */
import { DeviceStatus } from '../devices/devices.model'

export const FleetDevice = t.Object({
  id: t.String(),
  /** the name the account gave it; null shows the hostname */
  name: t.Nullable(t.String()),
  hostname: t.Nullable(t.String()),
  os: t.Nullable(t.String()),
  os_version: t.Nullable(t.String()),
  arch: t.Nullable(t.String()),
  tags: t.Array(t.String()),
  /** online within 2× its own interval since it was last seen, stale within 5×, else offline; never without a sample */
  status: DeviceStatus,
  /** measured from its recent sample times (median gap); null before its second sample */
  interval_seconds: t.Nullable(t.Number()),
  last_seen_at: t.Nullable(t.String({ format: 'date-time' })),
  cpu_percent: figure(),
  ram_percent: figure(),
  disk_used_percent: figure(),
  cpu_temp_c: figure(),
  download_mbps: figure(),
  upload_mbps: figure(),
  latency_avg_ms: figure(),
  packet_loss_percent: figure(),
  /** cpu_percent per minute over the last hour in whole percent, oldest first, the current minute last (60 values; null: no sample that minute) */
  cpu_spark: t.Array(t.Nullable(t.Number()), { minItems: 60, maxItems: 60 }),
  /** alerts firing on the device now */
  alerts_firing: Type.Integer({ minimum: 0 }),
})

export const FleetOverview = t.Object({
  generated_at: t.String({ format: 'date-time' }),
  /** every device of the account, oldest first */
  devices: t.Array(FleetDevice),
  /** the account's service checks that are down now (paused ones are not counted) */
  checks_down: Type.Integer({ minimum: 0 }),
})

export type FleetDevice = Static<typeof FleetDevice>
export type FleetOverview = Static<typeof FleetOverview>
