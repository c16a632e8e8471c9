import { t, type Static, type TSchema } from 'elysia'
import { Type } from '@sinclair/typebox'
import { words } from '../containers/containers.model'

const nullable = <T extends TSchema>(s: T) => t.Union([t.Null(), s])
const num = () => nullable(t.Number())
const int = () => nullable(Type.Integer())

export const DISK_KINDS = ['ata', 'nvme', 'scsi', 'other'] as const
export const MAX_DISKS = 64

/** One disk as `smartctl --json` described it (the wire shape of `disks_smart.devices`). */
export const DiskIn = t.Object({
  name: t.String({ minLength: 1, maxLength: 128, description: '/dev/sda, /dev/nvme0' }),
  model: nullable(t.String({ maxLength: 200 })),
  serial: nullable(t.String({ maxLength: 100 })),
  kind: words(DISK_KINDS),
  capacity_bytes: num(),
  passed: nullable(t.Boolean({ description: 'smart_status.passed' })),
  temperature_c: num(),
  power_on_hours: int(),
  reallocated_sectors: int(),
  pending_sectors: int(),
  uncorrectable_sectors: int(),
  nvme_percentage_used: num(),
  nvme_media_errors: int(),
})

/** The batch's `disks_smart` key: sent only in the batch after a fresh smartctl run (at most every 30 minutes). */
export const DisksSmartBlock = t.Object(
  {
    available: t.Boolean({ description: 'false: smartctl is missing or not permitted' }),
    unavailable_reason: nullable(t.String({ maxLength: 500 })),
    devices: t.Array(DiskIn, { maxItems: MAX_DISKS }),
  },
  { description: 'S.M.A.R.T. health of the device’s disks from smartctl; see docs/containers.md' },
)

export type DiskIn = Static<typeof DiskIn>
export type DisksSmartBlock = Static<typeof DisksSmartBlock>

export const Disk = t.Object({
  ...DiskIn.properties,
  name: t.String(),
  model: nullable(t.String()),
  serial: nullable(t.String()),
  failing: t.Boolean({ description: 'smartctl’s overall assessment failed, or sectors are pending or uncorrectable' }),
  reallocated_growth_7d: t.Union([t.Null(), Type.Integer()], { description: 'reallocated sectors gained over the last 7 days of readings' }),
  collected_at: t.String({ format: 'date-time', description: 'when smartctl read it (the batch’s time)' }),
})

export const DeviceDisks = t.Object({
  device_id: t.String(),
  available: t.Union([t.Null(), t.Boolean()], { description: 'null: the device never sent a S.M.A.R.T. report' }),
  unavailable_reason: nullable(t.String()),
  collected_at: nullable(t.String({ format: 'date-time' })),
  items: t.Array(Disk),
})

export const DisksAttention = t.Object({
  disks_failing: Type.Integer({ description: 'disks of the account whose newest reading is failing' }),
  items: t.Array(
    t.Object({
      device_id: t.String(),
      device_name: t.String(),
      name: t.String(),
      model: nullable(t.String()),
      collected_at: t.String({ format: 'date-time' }),
    }),
    { description: 'at most 100' },
  ),
})

export const DeviceParams = t.Object({ device_id: t.String({ maxLength: 100 }) })
export type Disk = Static<typeof Disk>
