// The device shapes the portal reads, from the server's model (type-only: nothing of it is bundled).
import type { DeviceResponse } from '../../../src/modules/devices/devices.model'

/** GET /v1/clients/me/devices/{id} */
export type Device = DeviceResponse
/** A device as the pickers need it (GET /v1/clients/me/devices). */
export type DeviceRef = Pick<DeviceResponse, 'device_id' | 'name' | 'hostname' | 'tags'>
