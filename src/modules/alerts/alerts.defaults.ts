import { CONTAINER_DEFAULT_RULES } from '../containers/containers.defaults'
import type { RuleIn } from './alerts.model'

/**
 * The rules every account starts with, so a new team is protected before it reads any docs.
 * They are made as ordinary rules (marked `builtin` with the key below) the first time one of
 * the account's devices reports or someone opens the alert rules; from then on they are the
 * account's own: edit, disable or delete them. POST /v1/alerts/defaults/restore brings back
 * deleted ones.
 */
export const DEFAULT_RULES: { key: string; description: string; rule: RuleIn & { kind: NonNullable<RuleIn['kind']> } }[] = [
  {
    key: 'offline',
    description: 'A device sent nothing for 5 of its reporting intervals.',
    rule: { name: 'Device offline', kind: 'offline', severity: 'critical', offline_intervals: 5, repeat_seconds: 14_400 },
  },
  {
    key: 'disk_90',
    description: 'A partition is more than 90 % full (resolves below 85 %).',
    rule: {
      name: 'Disk almost full',
      kind: 'threshold',
      severity: 'warning',
      metric: 'disk_partitions:*',
      operator: '>',
      threshold: 90,
      recovery_threshold: 85,
    },
  },
  {
    key: 'disk_forecast',
    description: 'At the trend of the last day, the fullest partition fills within 48 hours.',
    rule: { name: 'Disk full within 48 h', kind: 'disk_forecast', severity: 'warning', forecast_hours: 48 },
  },
  {
    key: 'memory_95',
    description: 'Memory more than 95 % used for 10 minutes (resolves below 90 %).',
    rule: {
      name: 'Memory exhausted',
      kind: 'threshold',
      severity: 'warning',
      metric: 'ram_percent',
      operator: '>',
      threshold: 95,
      recovery_threshold: 90,
      for_seconds: 600,
    },
  },
  {
    key: 'cpu_temp',
    description: 'CPU above 85 °C for 5 minutes (resolves below 80 °C).',
    rule: {
      name: 'CPU too hot',
      kind: 'threshold',
      severity: 'critical',
      metric: 'cpu_temp_c',
      operator: '>',
      threshold: 85,
      recovery_threshold: 80,
      for_seconds: 300,
      repeat_seconds: 14_400,
    },
  },
  // containers and disks (docs/containers.md): what needs a person is on; CPU and memory per container are off (noisy)
  ...CONTAINER_DEFAULT_RULES,
]
