/**
 * smartctl's JSON output (smartmontools 7+, `--json`): the device list of `--scan-open` and the
 * health of one device from `-a`. Shapes: https://www.smartmontools.org/wiki/JSON.
 */

/** The batch's `disks_smart` block as the hub takes it; strings cut to the hub's bounds. */
export interface DisksSmart {
  available: boolean
  unavailable_reason: string | null
  devices: SmartDevice[]
}

export interface SmartDevice {
  name: string
  model: string | null
  serial: string | null
  kind: 'ata' | 'nvme' | 'scsi' | 'other'
  capacity_bytes: number | null
  passed: boolean | null
  temperature_c: number | null
  power_on_hours: number | null
  reallocated_sectors: number | null
  pending_sectors: number | null
  uncorrectable_sectors: number | null
  nvme_percentage_used: number | null
  nvme_media_errors: number | null
}

export const SMART_BOUNDS = { devices: 64, name: 128, model: 200, serial: 100, reason: 500 } as const

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {})
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)
const int = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : null)
const str = (v: unknown, max: number): string | null => (typeof v === 'string' && v.trim() ? v.trim().slice(0, max) : null)

/** One device `--scan-open` found: its name, the -d type to ask it with, and why it could not be opened. */
export interface ScannedDevice {
  name: string
  type: string | null
  openError: string | null
}

export function parseScan(json: unknown): ScannedDevice[] {
  const devices = obj(json).devices
  if (!Array.isArray(devices)) return []
  return devices
    .map((d) => ({ name: str(obj(d).name, SMART_BOUNDS.name) ?? '', type: str(obj(d).type, 32), openError: str(obj(d).open_error, 300) }))
    .filter((d) => d.name.startsWith('/dev/'))
}

/**
 * smartctl's exit status is a bit mask: bit 0 the command line, bit 1 the device could not be
 * opened (or it sleeps, with -n standby), bit 2 a SMART command failed; bits 3–7 are the disk's
 * own verdicts, which come with a complete answer.
 */
export const exitBits = (json: unknown): number => int(obj(obj(json).smartctl).exit_status) ?? 0

/** The messages smartctl gave, joined, for the log and to tell why it failed. */
export function messagesOf(json: unknown): string {
  const messages = obj(obj(json).smartctl).messages
  if (!Array.isArray(messages)) return ''
  return messages
    .map((m) => str(obj(m).string, 200))
    .filter(Boolean)
    .join('; ')
}

const denied = (text: string | null) => !!text && /permission denied|operation not permitted/i.test(text)

/** Whether smartctl's answer says it may not open the device (it needs root or CAP_SYS_RAWIO). */
export const isPermissionDenied = (json: unknown): boolean => (exitBits(json) & 2) !== 0 && denied(messagesOf(json))
export const scanDenied = (d: ScannedDevice): boolean => denied(d.openError)

/** A disk spun down that -n standby left asleep: skipped this round rather than woken. */
export const isAsleep = (json: unknown): boolean => /standby|sleep/i.test(String(obj(json).power_mode ?? '')) || /STANDBY|SLEEP/.test(messagesOf(json))

const kindOf = (protocol: unknown): SmartDevice['kind'] => {
  const p = String(protocol ?? '').toLowerCase()
  return p === 'ata' ? 'ata' : p === 'nvme' ? 'nvme' : p === 'scsi' ? 'scsi' : 'other'
}

/** ATA attribute `id`'s raw value (the low 48 bits smartctl decodes into raw.value). */
function attribute(json: unknown, id: number): number | null {
  const table = obj(obj(json).ata_smart_attributes).table
  if (!Array.isArray(table)) return null
  const row = table.find((r) => obj(r).id === id)
  return row ? int(obj(obj(row).raw).value) : null
}

/**
 * One device's health from `smartctl -a --json`, or null when the answer holds none (not opened,
 * asleep, no SMART support). Temperature and power-on hours take smartctl's own summary first,
 * then the NVMe log or the ATA attributes (194's raw value packs min/max above the low byte).
 */
export function parseDevice(json: unknown, fallbackName: string): SmartDevice | null {
  const j = obj(json)
  if (exitBits(json) & 3 || obj(j.smart_support).available === false) return null
  const device = obj(j.device)
  const kind = kindOf(device.protocol)
  const nvme = obj(j.nvme_smart_health_information_log)
  const t194 = attribute(json, 194)
  const ata = kind === 'ata'
  return {
    name: str(device.name, SMART_BOUNDS.name) ?? fallbackName,
    model: str(j.model_name, SMART_BOUNDS.model) ?? str(j.scsi_model_name, SMART_BOUNDS.model),
    serial: str(j.serial_number, SMART_BOUNDS.serial),
    kind,
    capacity_bytes: int(obj(j.user_capacity).bytes) ?? int(j.nvme_total_capacity),
    passed: typeof obj(j.smart_status).passed === 'boolean' ? (obj(j.smart_status).passed as boolean) : null,
    temperature_c: num(obj(j.temperature).current) ?? num(nvme.temperature) ?? (t194 === null ? null : t194 & 0xff),
    power_on_hours: int(obj(j.power_on_time).hours) ?? int(nvme.power_on_hours) ?? attribute(json, 9),
    reallocated_sectors: ata ? attribute(json, 5) : null,
    pending_sectors: ata ? attribute(json, 197) : null,
    uncorrectable_sectors: ata ? attribute(json, 198) : null,
    nvme_percentage_used: kind === 'nvme' ? num(nvme.percentage_used) : null,
    nvme_media_errors: kind === 'nvme' ? int(nvme.media_errors) : null,
  }
}
