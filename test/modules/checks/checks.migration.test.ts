import { expect, test } from 'bun:test'
import { openDatabase } from '../../../src/db/connection'
import { migrate } from '../../../src/db/migrate'
import { MIGRATIONS } from '../../../src/db/migrations.gen'

test("the alert subjects migration rebuilds alerts (its subject may be a check) without losing an alert's events", () => {
  const db = openDatabase(':memory:')
  const before = MIGRATIONS.filter((m) => m.tag < '0015_alert_subjects')
  migrate(db.sqlite, 1, before)
  const s = db.sqlite
  s.run(
    "INSERT INTO clients (id, name, plan_type, subscription_status, max_devices, max_users, created_at, updated_at) VALUES ('cli_1', 'c', 'free', 'none', 1, 50, 1, 1)",
  )
  s.run("INSERT INTO devices (id, client_id, fingerprint, created_at, updated_at) VALUES ('dev_1', 'cli_1', 'fp', 1, 1)")
  s.run("INSERT INTO alert_rules (id, client_id, name, kind, severity, created_at, updated_at) VALUES ('rul_1', 'cli_1', 'r', 'offline', 'critical', 1, 1)")
  s.run(
    "INSERT INTO alerts (id, client_id, rule_id, device_id, state, severity, started_at) VALUES ('alr_1', 'cli_1', 'rul_1', 'dev_1', 'firing', 'critical', 1)",
  )
  s.run("INSERT INTO alert_events (id, client_id, alert_id, at, type) VALUES (1, 'cli_1', 'alr_1', 1, 'fired')")
  expect(migrate(s, 2)).toContain('0015_alert_subjects')
  expect(s.query('SELECT count(*) AS n FROM alert_events').get()).toEqual({ n: 1 })
  expect(s.query('SELECT device_id FROM alerts').get()).toEqual({ device_id: 'dev_1' })
  // a check's id is a subject too now; foreign keys are on again
  s.run(
    "INSERT INTO alerts (id, client_id, rule_id, device_id, state, severity, started_at) VALUES ('alr_2', 'cli_1', 'rul_1', 'chk_1', 'firing', 'critical', 1)",
  )
  expect(s.query('PRAGMA foreign_keys').get()).toEqual({ foreign_keys: 1 })
})
