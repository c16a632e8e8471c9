import type { RuleIn } from '../alerts/alerts.model'

/**
 * The default rules on containers and S.M.A.R.T. (listed in docs/alerts.md), made with the
 * account's other defaults. Every container is its own series, named after it.
 */
export const CONTAINER_DEFAULT_RULES: { key: string; description: string; rule: RuleIn & { kind: NonNullable<RuleIn['kind']> } }[] = [
  {
    key: 'container_exited',
    description: 'A container exited with a non-zero code (resolves when it runs again or exits with 0).',
    rule: { name: 'Container exited with an error', kind: 'threshold', severity: 'critical', metric: 'container:*:exit_code', operator: '>', threshold: 0 },
  },
  {
    key: 'container_unhealthy',
    description: 'A container’s health check reports unhealthy.',
    rule: { name: 'Container unhealthy', kind: 'threshold', severity: 'warning', metric: 'container:*:unhealthy', operator: '>', threshold: 0 },
  },
  {
    key: 'container_restarting',
    description: 'A container restarted 3 times or more within 15 minutes (a crash loop).',
    rule: { name: 'Container restarting', kind: 'threshold', severity: 'warning', metric: 'container:*:restarts', operator: '>=', threshold: 3 },
  },
  {
    key: 'container_oom',
    description: 'A container was killed for want of memory.',
    rule: { name: 'Container out of memory', kind: 'threshold', severity: 'critical', metric: 'container:*:oom_killed', operator: '>', threshold: 0 },
  },
  {
    key: 'container_cpu',
    description: 'Off by default: a container above 90 % CPU (of one core) for 10 minutes.',
    rule: {
      name: 'Container CPU high',
      kind: 'threshold',
      severity: 'warning',
      enabled: false,
      metric: 'container:*:cpu_percent',
      operator: '>',
      threshold: 90,
      recovery_threshold: 80,
      for_seconds: 600,
    },
  },
  {
    key: 'container_memory',
    description: 'Off by default: a container above 90 % of its memory limit for 10 minutes.',
    rule: {
      name: 'Container memory high',
      kind: 'threshold',
      severity: 'warning',
      enabled: false,
      metric: 'container:*:memory_percent',
      operator: '>',
      threshold: 90,
      recovery_threshold: 80,
      for_seconds: 600,
    },
  },
  {
    key: 'smart_failing',
    description: 'A disk fails its S.M.A.R.T. assessment, or has pending or uncorrectable sectors.',
    rule: { name: 'Disk failing (S.M.A.R.T.)', kind: 'threshold', severity: 'critical', metric: 'smart:*:failing', operator: '>', threshold: 0 },
  },
]
