import { describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from '../../helpers/binary'

const promtool = Bun.which('promtool')
if (!promtool) console.warn('promtool not found (Debian package prometheus): the shipped storage alert rules are not tested here')

const RULES = join(import.meta.dir, '../../../docs/prometheus-rules.yml')

/** `promtool test rules` over the shipped file: each alert fires when it should, and not before. */
const CASES = `
rule_files: [${JSON.stringify(RULES)}]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      # 50% free for 10 minutes, then 5% free: past the hub's 90%-used threshold
      - series: 'vigil_storage_disk_free_ratio{instance="hub:8080",job="vigil"}'
        values: '0.5x10 0.05x20'
      - series: 'vigil_storage_disk_warn_used_ratio{instance="hub:8080",job="vigil"}'
        values: '0.9x30'
      # over the budget for 10 minutes (pruning caught up), then for good from minute 12
      - series: 'vigil_storage_budget_used_ratio{instance="hub:8080",job="vigil"}'
        values: '0.9 1.02x9 0.95 0.95 1.3x20'
    alert_rule_test:
      - eval_time: 9m
        alertname: VigilDiskNearlyFull
        exp_alerts: []
      - eval_time: 14m
        alertname: VigilDiskNearlyFull
        exp_alerts: []
      - eval_time: 16m
        alertname: VigilDiskNearlyFull
        exp_alerts:
          - exp_labels: { severity: warning, instance: 'hub:8080', job: vigil }
            exp_annotations:
              summary: "The disk holding Vigil's data dir has 5% free"
              description: "When it fills, Vigil refuses new samples. Free space on it, or set VIGIL_STORAGE_BUDGET (e.g. 25%) so Vigil removes its oldest samples first."
      - eval_time: 11m
        alertname: VigilStorageBudgetExceeded
        exp_alerts: []
      - eval_time: 26m
        alertname: VigilStorageBudgetExceeded
        exp_alerts: []
      - eval_time: 28m
        alertname: VigilStorageBudgetExceeded
        exp_alerts:
          - exp_labels: { severity: warning, instance: 'hub:8080', job: vigil }
            exp_annotations:
              summary: "Vigil's data is at 130% of VIGIL_STORAGE_BUDGET"
              description: "The budget is smaller than what Vigil never prunes: raise VIGIL_STORAGE_BUDGET or lower the VIGIL_RETENTION_* settings. The operator page says how far over it is."
`

describe('the storage alert rules in docs/prometheus-rules.yml', () => {
  test.skipIf(!promtool)('promtool: the disk alert fires five minutes past the hub’s threshold, the budget one after a quarter of an hour over it', () => {
    const dir = tempDir('vigil-rules-')
    const file = join(dir, 'storage.test.yml')
    writeFileSync(file, CASES)
    const check = Bun.spawnSync([promtool!, 'check', 'rules', RULES])
    expect({ exit: check.exitCode, said: check.stderr.toString() }).toEqual({ exit: 0, said: '' })
    const run = Bun.spawnSync([promtool!, 'test', 'rules', file])
    const said = run.stdout.toString() + run.stderr.toString()
    expect({ exit: run.exitCode, said }).toEqual({ exit: 0, said: expect.stringContaining('SUCCESS') })
  })
})
