import { listDir, readLine, readNumber, round } from '../agent.fs'

export interface Temperature {
  label: string
  current: number
  high: number | null
  critical: number | null
}
export interface Fan {
  label: string
  current: number
}

const HWMON = 'sys/class/hwmon'

/** A hwmon chip's sensor files live in the hwmon dir, or in its device/ on older kernels. */
function sensorDirs(_root: string, chip: string): string[] {
  const base = `${HWMON}/${chip}`
  return [base, `${base}/device`]
}

/**
 * psutil's sensors_temperatures and sensors_fans: /sys/class/hwmon chips by name, their
 * tempN_input in °C (millidegrees in sysfs) with label, max and crit, and fanN_input in RPM.
 * Thermal zones (/sys/class/thermal) count only when no hwmon chip reports a temperature,
 * as in psutil, since most zones mirror a hwmon sensor.
 */
export function readSensors(root: string): { temperatures: Record<string, Temperature[]>; fans: Record<string, Fan[]> } {
  const temperatures: Record<string, Temperature[]> = {}
  const fans: Record<string, Fan[]> = {}
  for (const chip of listDir(root, HWMON).sort(byNumber)) {
    const name = readLine(root, `${HWMON}/${chip}/name`) ?? readLine(root, `${HWMON}/${chip}/device/name`) ?? chip
    for (const dir of sensorDirs(root, chip)) {
      const files = listDir(root, dir)
      for (const base of sensorsOf(files, 'temp')) {
        const current = readNumber(root, `${dir}/${base}_input`)
        if (current === null) continue
        const milli = (f: string) => {
          const v = readNumber(root, `${dir}/${base}_${f}`)
          return v === null ? null : round(v / 1000, 1)
        }
        ;(temperatures[name] ??= []).push({
          label: readLine(root, `${dir}/${base}_label`) ?? '',
          current: round(current / 1000, 1),
          high: milli('max'),
          critical: milli('crit'),
        })
      }
      for (const base of sensorsOf(files, 'fan')) {
        const current = readNumber(root, `${dir}/${base}_input`)
        if (current !== null) (fans[name] ??= []).push({ label: readLine(root, `${dir}/${base}_label`) ?? '', current })
      }
    }
  }
  if (Object.keys(temperatures).length === 0) {
    for (const zone of listDir(root, 'sys/class/thermal')
      .filter((z) => z.startsWith('thermal_zone'))
      .sort(byNumber)) {
      const type = readLine(root, `sys/class/thermal/${zone}/type`)
      const temp = readNumber(root, `sys/class/thermal/${zone}/temp`)
      if (type === null || temp === null) continue
      ;(temperatures[type] ??= []).push({ label: '', current: round(temp / 1000, 1), high: null, critical: null })
    }
  }
  return { temperatures, fans }
}

/** `temp1`, `temp2`... for which a `_input` file exists, in numeric order. */
function sensorsOf(files: string[], kind: 'temp' | 'fan'): string[] {
  const re = new RegExp(`^(${kind}\\d+)_input$`)
  return files.flatMap((f) => re.exec(f)?.[1] ?? []).sort(byNumber)
}

const byNumber = (a: string, b: string) => Number(a.replace(/\D/g, '')) - Number(b.replace(/\D/g, '')) || a.localeCompare(b)

/** Chips that measure the CPU, most specific first; the label picks the package/die sensor. */
const CPU_CHIPS: [string, RegExp | null][] = [
  ['coretemp', /^Package id/],
  ['k10temp', /^Tdie|^Tctl/],
  ['zenpower', /^Tdie|^Tctl/],
  ['cpu_thermal', null],
  ['cpu-thermal', null],
  ['soc_thermal', null],
  ['x86_pkg_temp', null],
  ['cpu', null],
  ['acpitz', null],
]

/** The CPU's temperature in °C from the sensors read, or null when no chip measures the CPU. */
export function cpuTemperature(temperatures: Record<string, Temperature[]>): number | null {
  for (const [chip, label] of CPU_CHIPS) {
    const list = temperatures[chip]
    if (!list?.length) continue
    const pick = (label && list.find((t) => label.test(t.label))) || list[0]!
    return pick.current
  }
  return null
}
