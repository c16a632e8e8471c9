/**
 * `bun scripts/bench/reads-triggers.ts`: what the hour counts' triggers (metrics.history.hours.ts)
 * add to writing the raw table, per row: 200,000 rows of 20 devices inserted in one transaction
 * (as sealing moves samples in), then deleted (as a pruning does), into an in-memory table with
 * the raw table's (device, ts) index, without the triggers, with them and no device's counts
 * held, and with them and the device's counts held.
 */
import { Database } from 'bun:sqlite'
import { openHourCounts } from '../../src/modules/metrics/metrics.history.hours'

const ROWS = 200_000

function table(triggers: boolean, held: boolean) {
  const db = new Database(':memory:')
  db.run(
    'CREATE TABLE metric_samples (id INTEGER PRIMARY KEY, device_seq INTEGER NOT NULL, ts INTEGER NOT NULL, kinds INTEGER NOT NULL DEFAULT 3, a REAL, b REAL)',
  )
  db.run('CREATE UNIQUE INDEX metric_samples_device_ts ON metric_samples (device_seq, ts)')
  const counts = triggers ? openHourCounts(db) : null
  db.run('INSERT INTO metric_samples (device_seq, ts) VALUES (1, 0)')
  if (held) counts!.at(1, 0, Number.MAX_SAFE_INTEGER, 0)
  return db
}

const cpuMs = () => {
  const c = process.cpuUsage()
  return (c.user + c.system) / 1000
}

console.log('| triggers | per row inserted | per row deleted |\n|---|---|---|')
for (const [name, triggers, held] of [
  ['none', false, false],
  ['on, no counts held', true, false],
  ["on, the device's counts held", true, true],
] as const) {
  const db = table(triggers, held)
  const insert = db.prepare('INSERT INTO metric_samples (device_seq, ts, a, b) VALUES (?, ?, 1.5, 2.5)')
  let c = cpuMs()
  db.transaction(() => {
    for (let i = 1; i <= ROWS; i++) insert.run(1 + (i % 20), i * 10_000)
  })()
  const inserted = cpuMs() - c
  c = cpuMs()
  db.run('DELETE FROM metric_samples WHERE ts > 0')
  const deleted = cpuMs() - c
  console.log(`| ${name} | ${((inserted * 1000) / ROWS).toFixed(2)} µs | ${((deleted * 1000) / ROWS).toFixed(2)} µs |`)
  db.close()
}
