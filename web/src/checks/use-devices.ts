import { api } from '../lib/api'
import { useLoad } from '../lib/use-load'
import type { DeviceRef } from '../devices/device-types'
import { displayName } from '../devices/fleet'

/** The account's devices (for agents that run checks and for names of places); an error leaves the list empty. */
export function useDevices(): DeviceRef[] {
  const devices = useLoad(() => api.get<DeviceRef[]>('/v1/clients/me/devices').catch(() => [] as DeviceRef[]))
  return devices.data ?? []
}

/** "Hub", "Calls" for a heartbeat's own, or the name of the device whose agent ran it (its id when the device is gone). */
export function placeNamer(devices: DeviceRef[]): (place: string) => string {
  const names = new Map(devices.map((d) => [d.device_id, displayName({ name: d.name ?? null, hostname: d.hostname ?? null, id: d.device_id })]))
  return (place) => (place === 'hub' ? 'Hub' : place === 'heartbeat' ? 'Calls to its URL' : (names.get(place) ?? place))
}
