import { deviceStatus } from '../devices/devices.status'

/**
 * A device's status by its own rhythm, not a fixed window: the devices domain's rule, so the fleet
 * overview and the live stream's `device.status` events always agree.
 */
export const statusOf = deviceStatus
