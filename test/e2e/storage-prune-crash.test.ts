import { beforeAll, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { cpSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { jsonClient, type JsonCall } from '../helpers/json-client'
import { ensureBinary, startBinary, tempDir } from '../helpers/binary'
import { blockLogDir } from '../../src/modules/metrics/metrics.block.log'
import { fileSegments } from '../../src/modules/metrics/metrics.segment-files'
import { expectSealedWhole } from '../helpers/blocks'
import { rng } from '../../scripts/bench/storage-samples'
import { hardwareSample, networkSample } from '../helpers/samples'

/**
 * kill -9 while the disk budget prunes: a hub on a 1 MB budget holds ten hours of one device's
 * samples (replayed with their times, the newest two hours old), sealed into blocks. Each round
 * restarts it, asks it to apply its budget (the every-minute job's own run) and kills it with
 * SIGKILL at an observable moment of the pruning: the raw rows fewer than when the round began,
 * the blocks fewer, or two hours of rows gone. After each kill the database is whole (integrity
 * check, no sealed row without its block, every block and its minutes whole in their file); at the end a
 * pruning runs to completion, every sample newer than the oldest kept reads back as posted, and
 * what pruning removed stays removed across a restart.
 */
beforeAll(() => void ensureBinary(), 120_000)

const HOUR = 3_600_000
const STEP = 10_000
const HOURS = 10
const BUDGET = 1_500_000
const SEALED_BIT = 4

type Sample = { hardware: Record<string, unknown>; network: Record<string, unknown> }

async function login(call: JsonCall) {
  const r = await call('POST', '/v1/auth/login', { email: 'op@example.test', password: 'correct horse battery' })
  expect(r.status).toBe(200)
  return { authorization: `Bearer ${r.body.access_token}` }
}

const count = (db: Database, sql: string) => db.query<{ n: number }, []>(sql).get()!.n

test('kill -9 during pruning: nothing kept is lost, nothing is half written, the next pruning completes', async () => {
  const cwd = tempDir('vigil-prunecrash-')
  const dataDir = join(cwd, 'data')
  const dbPath = join(dataDir, 'vigil.db')
  const unbudgeted = { VIGIL_DATA_DIR: dataDir, VIGIL_RATE_LIMIT_FREE: '1000000', VIGIL_RATE_LIMIT_ANONYMOUS: '1000000' }
  const env = { ...unbudgeted, VIGIL_STORAGE_BUDGET: '1.5MB' }

  // filled and sealed without a budget, so that the budget's every-minute job prunes nothing before the rounds
  let hub = await startBinary({ cwd, env: unbudgeted })
  let call = jsonClient(hub.base)
  await call('POST', '/v1/auth/register', { email: 'op@example.test', password: 'correct horse battery' })
  let auth = await login(call)
  const key = await call('POST', '/v1/auth/api-keys', { name: 'collector' }, auth)
  const keyHeaders = { 'x-api-key': key.body.api_key }
  const device = await call('POST', '/v1/clients/me/devices', { hostname: 'pi', os: 'linux', os_version: '6', arch: 'arm64', fingerprint: 'fp-pi' }, keyHeaders)
  expect(device.status).toBe(201)
  const deviceId: string = device.body.device_id
  const end = Math.floor(Date.now() / 1000) * 1000 - 2 * HOUR
  const start = end - HOURS * HOUR
  const rand = rng(27)
  const posted = new Map<number, Sample>()
  const times: number[] = []
  for (let ts = start; ts <= end; ts += STEP) times.push(ts)
  for (let i = 0; i < times.length; i += 200) {
    const items = times.slice(i, i + 200).map((ts, j) => {
      // readings that do not compress away, so pruning has bytes to free
      const sample = { hardware: { ...hardwareSample(i + j), vendor_extra: Array.from({ length: 32 }, () => rand()) }, network: networkSample(i + j) }
      posted.set(ts, sample)
      return { ...sample, recorded_at: new Date(ts).toISOString() }
    })
    expect((await call('POST', '/v1/metrics/bulk', { device_id: deviceId, items }, keyHeaders)).status).toBe(201)
  }
  hub.proc.kill('SIGTERM')
  await hub.proc.exited

  // started again, it seals them at once (samples over an hour old)
  hub = await startBinary({ cwd, env: unbudgeted })
  call = jsonClient(hub.base)
  while ((await call('GET', '/health')).body.storage.converting_devices !== 0) await Bun.sleep(100) // waiting for the job, not for time
  hub.proc.kill('SIGTERM')
  await hub.proc.exited

  // the file as another process sees it (opened while the hub runs, closed before it is killed)
  let watch = new Database(dbPath)
  const rows = () => count(watch, 'SELECT count(*) AS n FROM metric_samples')
  const blocks = () => count(watch, 'SELECT count(*) AS n FROM metric_block_index')
  expect(count(watch, `SELECT count(*) AS n FROM metric_samples WHERE (kinds & ${SEALED_BIT}) != 0`)).toBe(times.length)
  watch.close()

  // the moments to kill at, each seen from outside the process
  const moments: { name: string; reached: (r0: number, b0: number) => boolean }[] = [
    { name: 'first rows deleted', reached: (r0) => rows() < r0 },
    { name: 'first blocks deleted', reached: (_r0, b0) => blocks() < b0 },
    { name: 'two hours of rows deleted', reached: (r0) => rows() <= r0 - (2 * HOUR) / STEP },
  ]
  // a pruning that ended before its moment was seen (a quick disk, a busy poller) is undone from a
  // copy of the data dir taken before it and tried again, so each moment is met whatever the timing
  const snapshot = join(cwd, 'before-round')
  let killedWhilePruning = 0
  for (const moment of moments) {
    for (let attempt = 1; ; attempt++) {
      rmSync(snapshot, { recursive: true, force: true })
      cpSync(dataDir, snapshot, { recursive: true })
      hub = await startBinary({ cwd, env })
      call = jsonClient(hub.base)
      auth = await login(call)
      watch = new Database(dbPath, { readonly: true })
      const r0 = rows()
      const b0 = blocks()
      let answered = false
      const enforcing = call('POST', '/v1/admin/storage/enforce', undefined, auth)
        .then(() => {
          answered = true
        })
        .catch(() => {}) // the hub is killed under it
      while (!answered && !moment.reached(r0, b0)) await Bun.sleep(0) // polling the file: the event, not the time
      const mid = !answered
      hub.proc.kill('SIGKILL')
      watch.close()
      await hub.proc.exited
      await enforcing
      expectSealedWhole(dbPath)
      if (mid) {
        killedWhilePruning++
        break
      }
      if (attempt === 5) break
      rmSync(dataDir, { recursive: true, force: true })
      cpSync(snapshot, dataDir, { recursive: true })
    }
  }
  expect(killedWhilePruning).toBe(moments.length)
  watch = new Database(dbPath, { readonly: true })
  const prunedUntil = watch.query<{ t: number }, []>('SELECT min(ts) AS t FROM metric_samples').get()!.t
  watch.close()
  expect(prunedUntil).toBeGreaterThan(start)

  // the next pruning runs to its end
  hub = await startBinary({ cwd, env })
  call = jsonClient(hub.base)
  auth = await login(call)
  const enforced = await call('POST', '/v1/admin/storage/enforce', undefined, auth)
  expect(enforced.status).toBe(200)
  expect(enforced.body.database_bytes).toBeLessThanOrEqual(BUDGET)
  expect(enforced.body.budget.short_bytes).toBe(0)

  const readAll = async (kind: 'hardware' | 'network') => {
    const items: any[] = []
    for (let offset = 0; ; offset += 1000) {
      const page = await call('GET', `/v1/metrics/${kind}/${deviceId}?limit=1000&offset=${offset}`, undefined, auth)
      expect(page.status).toBe(200)
      items.push(...page.body.items)
      if (page.body.items.length < 1000) return items
    }
  }
  /** every sample from the oldest kept to the newest, each as posted */
  const checkKept = async () => {
    for (const kind of ['hardware', 'network'] as const) {
      const items = (await readAll(kind)).reverse()
      const first = Date.parse(items[0].recorded_at)
      expect(first).toBeGreaterThanOrEqual(prunedUntil)
      expect(items.map((it) => Date.parse(it.recorded_at))).toEqual(times.filter((t) => t >= first))
      for (const it of items) expect(it).toMatchObject(posted.get(Date.parse(it.recorded_at))![kind])
    }
  }
  await checkKept()

  // what was pruned stays pruned across a restart, and the file is whole
  hub.proc.kill('SIGTERM')
  await hub.proc.exited
  expectSealedWhole(dbPath)
  const db = new Database(dbPath, { readonly: true })
  // every block left holds rows, and no file is left that no block points into
  expect(
    count(
      db,
      'SELECT count(*) AS n FROM metric_block_index b WHERE NOT EXISTS (SELECT 1 FROM metric_samples s WHERE s.device_seq = b.device_seq AND s.ts >= b.start AND s.ts < b.start + 600000)',
    ),
  ).toBe(0)
  const files = db
    .query<{ file: number }, []>('SELECT DISTINCT file FROM metric_block_index ORDER BY file')
    .all()
    .map((r) => r.file)
  expect(fileSegments(blockLogDir(dbPath), true).list()).toEqual(files)
  db.close()
  hub = await startBinary({ cwd, env })
  call = jsonClient(hub.base)
  auth = await login(call)
  try {
    await checkKept()
  } finally {
    hub.proc.kill('SIGTERM')
    await hub.proc.exited
  }
}, 60_000)
