import { AppError } from '../../http/errors'
import type { KeyPrincipal } from '../../http/principal'

/**
 * A key bound to a device (device_id) may act for that device only. Key routes that name a
 * device (metrics, recommendations, device registration) call this before writing:
 * `const deviceId = deviceForKey(key, body.device_id ?? headerDeviceId)`.
 * Returns the device to act for: the requested one, or the bound one when none is named.
 */
export function deviceForKey(key: KeyPrincipal, requested: string | null | undefined): string | null {
  if (key.deviceId === null) return requested ?? null
  if (requested && requested !== key.deviceId) {
    throw new AppError('device_mismatch', 'This API key is bound to another device', 'device_id')
  }
  return key.deviceId
}
