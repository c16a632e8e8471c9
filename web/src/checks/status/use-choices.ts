import { useMemo } from 'preact/hooks'
import { api } from '../../lib/api'
import { useLoad } from '../../lib/use-load'
import { displayName } from '../../devices/fleet'
import type { CheckListItem } from '../types'
import { useDevices } from '../use-devices'
import type { Choice } from './page-form'

/** Every check and device of the account, as the groups editor offers them. */
export function useChoices(): Choice[] {
  const checks = useLoad(() => api.get<CheckListItem[]>('/v1/checks').catch(() => [] as CheckListItem[]))
  const devices = useDevices()
  return useMemo(
    () => [
      ...(checks.data ?? []).map((c) => ({ value: `check:${c.id}`, label: `Check: ${c.name}` })),
      ...devices.map((d) => ({
        value: `device:${d.device_id}`,
        label: `Device: ${displayName({ name: d.name ?? null, hostname: d.hostname ?? null, id: d.device_id })}`,
      })),
    ],
    [checks.data, devices],
  )
}
