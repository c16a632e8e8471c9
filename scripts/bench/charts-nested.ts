/**
 * `bun scripts/bench/charts-nested.ts [--days 30] [--again 20] [--data <dir>]`: charts of nested
 * families (`cpu_per_core` and `disk_partitions`) over a day, a week and a month, in process
 * through the composed app, on one device seeded with the real sample (`dist/vigil agent --once`)
 * every 10 s for `--days` and sealed as a running hub seals it (scripts/bench/seed.ts). For each
 * range: the CPU of the newest range read again (median of `--again` after as many warm-up
 * reads), as a dashboard refreshes it, and of older ranges each read once (their blocks' minutes
 * decoded for the first time), the blocks' minutes decoded for each, and the heap after; then a
 * day's chart of a second device that has sent four hours, read again. Run it in two trees, one after
 * the other, to compare builds: each seeds with its own code, so each reads the minutes in the
 * form it stores them. `--data` keeps the seeded database for the next run of the same tree.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { heapStats } from 'bun:jsc'
import { Database } from 'bun:sqlite'
import { openDatabase } from '../../src/db/connection'
import { systemClock } from '../../src/lib/clock'
import { createBlockStore } from '../../src/modules/metrics/metrics.block.store'
import { accessTokens } from '../../src/modules/users/users.tokens'
import { TEST_JWT_SECRET, testApp } from '../../test/helpers/app'
import { freshDb } from './common'
import { seedAccounts, seedSamples } from './seed'

const argv = process.argv.slice(2)
const opt = (name: string) => {
  const at = argv.indexOf(name)
  return at === -1 ? undefined : argv[at + 1]
}
const DAYS = Number(opt('--days') ?? 30)
const AGAIN = Number(opt('--again') ?? 20)
const kept = opt('--data')
const YOUNG_HOURS = 4
const dir = kept ?? mkdtempSync(join(tmpdir(), 'vigil-charts-'))
const file = join(dir, 'vigil.db')
const marker = join(dir, 'charts-nested.json')

let world: { end: number; userId: string; clientId: string; deviceId: string; seq: number; youngId: string }
if (existsSync(marker)) world = await Bun.file(marker).json()
else {
  const db = freshDb(dir)
  const end = Date.now()
  const [tenant] = seedAccounts(db.sqlite, { tenants: 1, keysPerTenant: 1, maxDevices: 2, devicesPerTenant: 2, now: end })
  const [device, young] = tenant!.devices
  const t0 = performance.now()
  await seedSamples(db.sqlite, [device!.seq], DAYS * 8_640, end)
  // a device that has sent four hours (a day's chart of it starts at its oldest sample)
  await seedSamples(db.sqlite, [young!.seq], YOUNG_HOURS * 360, end)
  console.log(`seeded ${DAYS} days of one device and ${YOUNG_HOURS} hours of another in ${((performance.now() - t0) / 1000).toFixed(0)} s`)
  world = { end, userId: tenant!.userId, clientId: tenant!.clientId, deviceId: device!.id, seq: device!.seq, youngId: young!.id }
  db.sqlite.run('PRAGMA wal_checkpoint(TRUNCATE)')
  db.close()
  // the seed empties the sealed rows in place, one a page; VACUUM lays them side by side, as a
  // running hub writes them (a connection of its own: the app's has the temp view named like the table)
  const v = new Database(file)
  v.run('VACUUM')
  v.run('PRAGMA wal_checkpoint(TRUNCATE)')
  v.close()
  await Bun.write(marker, JSON.stringify(world))
}

const token = await accessTokens(TEST_JWT_SECRET, systemClock).sign({ userId: world.userId, clientId: world.clientId, role: 'user' })
const iso = (ms: number) => new Date(ms).toISOString()
const DAY = 86_400_000
/** the chart of `days` ending `back` such ranges before the seed's end */
const path = (days: number, back: number, device = world.deviceId) => {
  const end = world.end - back * days * DAY
  return `/v1/metrics/series/${device}?kind=hardware&fields=cpu_per_core,disk_partitions&start=${iso(end - days * DAY)}&end=${iso(end)}`
}

const db = openDatabase(file)
const t = testApp({ db, clock: systemClock, config: { rateLimits: { anonymous: 1e9, free: 1e9, pro: 1e9, enterprise: 1e9 } } as never })
const decodes = () => createBlockStore(db.sqlite).stats().minuteDecodes

async function read(url: string): Promise<number> {
  const c0 = process.cpuUsage()
  const res = await t.handle(new Request(`http://localhost${url}`, { headers: { authorization: `Bearer ${token}` } }))
  const body = await res.text()
  const c = process.cpuUsage(c0)
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${body}`)
  return (c.user + c.system) / 1000
}

const median = (xs: number[]) => (xs.length ? `${[...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(2)} ms` : '—')
console.log(`charts of cpu_per_core + disk_partitions, ${DAYS} days sealed, bun ${Bun.version}, load average ${loadavg()[0]!.toFixed(2)}`)
console.log(
  `| range | read again: CPU (median of the last ${AGAIN}) | minutes decoded per read again | opened first: CPU (median; ranges) | minutes decoded per range opened first | heap after |`,
)
console.log('|---|---|---|---|---|---|')
for (const [label, days] of [
  ['a day', 1],
  ['a week', 7],
  ['a month', 30],
] as const) {
  if (days > DAYS) continue
  // the newest range read again and again, as a dashboard refreshes it (the first reads compile the code)
  for (let i = 0; i < AGAIN; i++) await read(path(days, 0))
  let d0 = decodes()
  const again: number[] = []
  for (let i = 0; i < AGAIN; i++) again.push(await read(path(days, 0)))
  const againDecodes = (decodes() - d0) / AGAIN
  // older ranges, each read once: their blocks' minutes decoded for the first time
  d0 = decodes()
  const first: number[] = []
  const ranges = Math.min(10, Math.floor(DAYS / days) - 1)
  for (let back = 1; back <= ranges; back++) first.push(await read(path(days, back)))
  Bun.gc(true)
  console.log(
    `| ${label} | ${median(again)} | ${againDecodes.toFixed(0)} | ${median(first)} (${ranges}) | ${ranges ? ((decodes() - d0) / ranges).toFixed(0) : '—'} | ${(heapStats().heapSize / 1e6).toFixed(1)} MB |`,
  )
}
{
  // a day's chart of the device that has sent four hours, read again
  const young = path(1, 0, world.youngId)
  for (let i = 0; i < AGAIN; i++) await read(young)
  const d0 = createBlockStore(db.sqlite).stats().decodes
  const again: number[] = []
  for (let i = 0; i < AGAIN; i++) again.push(await read(young))
  const blocks = (createBlockStore(db.sqlite).stats().decodes - d0) / AGAIN
  console.log(`| a day, of a device that has sent ${YOUNG_HOURS} hours | ${median(again)} | | | blocks decoded per read: ${blocks.toFixed(0)} | |`)
}
db.close()
if (!kept) rmSync(dir, { recursive: true, force: true })
