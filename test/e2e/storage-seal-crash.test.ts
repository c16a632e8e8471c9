import { beforeAll, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import type { Subprocess } from 'bun'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { jsonClient } from '../helpers/json-client'
import { ensureBinary, startBinary, tempDir } from '../helpers/binary'
import { rng } from '../../scripts/bench/storage-samples'
import { blockLogDir } from '../../src/modules/metrics/metrics.block.log'
import { fileSegments } from '../../src/modules/metrics/metrics.segment-files'
import { hardwareSample, networkSample } from '../helpers/samples'
import { expectSealedWhole } from '../helpers/blocks'

/**
 * kill -9 while sealing appends blocks to their files (metrics.block.log.ts) and while a deleted
 * device's blocks wait to be wiped. Twelve hours of two devices' samples, two hours old, are
 * posted to a hub that is then started again: its first sealing run seals them (two transactions
 * of 64 blocks and fewer). Each round kills it at a moment seen from outside: block bytes in the
 * files and none of their index rows committed, some committed. After each kill the database is
 * whole and every block the index points to is whole in its file; at the end every sample reads
 * back as posted, and the bytes a killed sealing appended without its COMMIT are cut off.
 * Then one device is deleted and the hub killed before the sealing job wipes its blocks: the
 * next start overwrites them with zeros, and the other device reads on.
 */
beforeAll(() => void ensureBinary(), 120_000)

const HOUR = 3_600_000
const STEP = 10_000
const HOURS = 12
const SEALED_BIT = 4

type Sample = { hardware: Record<string, unknown>; network: Record<string, unknown> }

const count = (db: Database, sql: string) => db.query<{ n: number }, []>(sql).get()!.n

/** the block files' sizes in all */
const fileBytes = (dbPath: string) => {
  const dir = blockLogDir(dbPath)
  return fileSegments(dir, true)
    .list()
    .reduce((s, f) => s + statSync(join(dir, `${f}.log`)).size, 0)
}

test('kill -9 while sealing and before a deleted device is wiped: nothing acknowledged is lost, nothing half written stays, the bytes are zeroed', async () => {
  const cwd = tempDir('vigil-sealcrash-')
  const dataDir = join(cwd, 'data')
  const dbPath = join(dataDir, 'vigil.db')
  const env = { VIGIL_DATA_DIR: dataDir, VIGIL_RATE_LIMIT_FREE: '1000000', VIGIL_RATE_LIMIT_ANONYMOUS: '1000000' }

  let hub = await startBinary({ cwd, env })
  let call = jsonClient(hub.base)
  await call('POST', '/v1/auth/register', { email: 'op@example.test', password: 'correct horse battery' })
  const login = async () => {
    const r = await call('POST', '/v1/auth/login', { email: 'op@example.test', password: 'correct horse battery' })
    expect(r.status).toBe(200)
    return { authorization: `Bearer ${r.body.access_token}` }
  }
  let auth = await login()
  const key = await call('POST', '/v1/auth/api-keys', { name: 'collector' }, auth)
  const keyHeaders = { 'x-api-key': key.body.api_key }
  const deviceIds: string[] = []
  for (const name of ['pi', 'nas']) {
    const d = await call(
      'POST',
      '/v1/clients/me/devices',
      { hostname: name, os: 'linux', os_version: '6', arch: 'arm64', fingerprint: `fp-${name}` },
      keyHeaders,
    )
    expect(d.status).toBe(201)
    deviceIds.push(d.body.device_id)
  }
  const end = Math.floor(Date.now() / 1000) * 1000 - 2 * HOUR
  const start = end - HOURS * HOUR
  const rand = rng(28)
  const posted = new Map<string, Map<number, Sample>>()
  const times: number[] = []
  for (let ts = start; ts <= end; ts += STEP) times.push(ts)
  for (const deviceId of deviceIds) {
    const mine = new Map<number, Sample>()
    posted.set(deviceId, mine)
    for (let i = 0; i < times.length; i += 200) {
      const items = times.slice(i, i + 200).map((ts, j) => {
        // readings that do not compress away, so each block takes a while to encode and write
        const sample = { hardware: { ...hardwareSample(i + j), vendor_extra: Array.from({ length: 32 }, () => rand()) }, network: networkSample(i + j) }
        mine.set(ts, sample)
        return { ...sample, recorded_at: new Date(ts).toISOString() }
      })
      expect((await call('POST', '/v1/metrics/bulk', { device_id: deviceId, items }, keyHeaders)).status).toBe(201)
    }
  }
  hub.proc.kill('SIGTERM')
  await hub.proc.exited

  const allSealed = (w: Database) => count(w, `SELECT count(*) AS n FROM metric_samples WHERE (kinds & ${SEALED_BIT}) != 0`) === 2 * times.length
  // each start seals at once (samples over an hour old): killed at these moments, seen from outside.
  // Some index rows committed first: a start may begin sealing before the watch looks, and the
  // first transaction's bytes would then be committed unseen; killed there, the sealing is left
  // unfinished for the next start, which is watched for bytes appended before their COMMIT.
  const moments: { name: string; reached: (watch: Database, i0: number, f0: number) => boolean }[] = [
    { name: 'index rows committed', reached: (w, i0) => count(w, 'SELECT count(*) AS n FROM metric_block_index') > i0 && !allSealed(w) },
    {
      name: 'block bytes appended, their index rows not committed',
      reached: (w, i0, f0) => fileBytes(dbPath) > f0 && count(w, 'SELECT count(*) AS n FROM metric_block_index') === i0,
    },
  ]
  let killedWhileSealing = 0
  for (const moment of moments) {
    const watch = new Database(dbPath, { readonly: true })
    const i0 = count(watch, 'SELECT count(*) AS n FROM metric_block_index')
    const f0 = existsSync(blockLogDir(dbPath)) ? fileBytes(dbPath) : 0
    // watched from the moment the process exists: its first sealing run may begin, and end, before it answers
    let proc: Subprocess | undefined
    const starting = startBinary({ cwd, env, onSpawn: (p) => (proc = p) })
    let reached = false
    // polling the files and the index: the event, not the time
    for (let i = 0; i < 2_000_000 && !reached; i++) {
      reached = moment.reached(watch, i0, f0)
      if (!reached) await Bun.sleep(0)
      if (!reached && allSealed(watch)) break
    }
    proc!.kill('SIGKILL')
    await proc!.exited
    await starting.catch(() => undefined) // killed before it answered
    if (reached) killedWhileSealing++
    watch.close()
    expectSealedWhole(dbPath)
  }
  expect(killedWhileSealing).toBeGreaterThanOrEqual(1)

  // started again, it finishes; every sample reads back as posted; no byte after the last block of a file
  hub = await startBinary({ cwd, env })
  call = jsonClient(hub.base)
  while ((await call('GET', '/health')).body.storage.converting_devices !== 0) await Bun.sleep(100) // waiting for the job, not for time
  auth = await login()
  const readAll = async (deviceId: string, kind: 'hardware' | 'network') => {
    const items: any[] = []
    for (let offset = 0; ; offset += 1000) {
      const page = await call('GET', `/v1/metrics/${kind}/${deviceId}?limit=1000&offset=${offset}`, undefined, auth)
      expect(page.status).toBe(200)
      items.push(...page.body.items)
      if (page.body.items.length < 1000) return items.reverse()
    }
  }
  for (const deviceId of deviceIds)
    for (const kind of ['hardware', 'network'] as const) {
      const items = await readAll(deviceId, kind)
      expect(items.map((it) => Date.parse(it.recorded_at))).toEqual(times)
      for (const it of items) expect(it).toMatchObject(posted.get(deviceId)!.get(Date.parse(it.recorded_at))![kind])
    }
  let db = new Database(dbPath, { readonly: true })
  expect(count(db, `SELECT count(*) AS n FROM metric_samples WHERE (kinds & ${SEALED_BIT}) != 0`)).toBe(2 * times.length)
  const ends = db
    .query<{ file: number; end: number }, []>('SELECT file, max(at + 16 + length + nested_length) AS end FROM metric_block_index GROUP BY file')
    .all()
  for (const e of ends) expect(statSync(join(blockLogDir(dbPath), `${e.file}.log`)).size).toBe(e.end)
  const gone = db.query<{ seq: number }, [string]>('SELECT seq FROM devices WHERE id = ?').get(deviceIds[0]!)!.seq
  const ranges = db
    .query<{ file: number; at: number; length: number; nested_length: number }, [number]>(
      'SELECT file, at, length, nested_length FROM metric_block_index WHERE device_seq = ?',
    )
    .all(gone)
  db.close()
  expect(ranges.length).toBeGreaterThanOrEqual(HOURS * 6)
  const bytesOf = (r: (typeof ranges)[number]) =>
    readFileSync(join(blockLogDir(dbPath), `${r.file}.log`)).subarray(r.at, r.at + 16 + r.length + r.nested_length)
  expect(ranges.every((r) => bytesOf(r).some((b) => b !== 0))).toBe(true)

  // a device deleted, the hub killed before its next sealing run wipes the device's blocks
  expect((await call('DELETE', `/v1/clients/me/devices/${deviceIds[0]}`, undefined, auth)).status).toBe(204)
  hub.proc.kill('SIGKILL')
  await hub.proc.exited
  db = new Database(dbPath, { readonly: true })
  expect(count(db, 'SELECT count(*) AS n FROM metric_block_wipes')).toBe(ranges.length)
  db.close()
  hub = await startBinary({ cwd, env })
  call = jsonClient(hub.base)
  db = new Database(dbPath, { readonly: true })
  while (count(db, 'SELECT count(*) AS n FROM metric_block_wipes') !== 0) await Bun.sleep(50) // the first sealing run, at start
  db.close()
  for (const r of ranges) expect(bytesOf(r).some((b) => b !== 0)).toBe(false)
  auth = await login()
  try {
    for (const kind of ['hardware', 'network'] as const) {
      const items = await readAll(deviceIds[1]!, kind)
      expect(items.length).toBe(times.length)
      for (const it of items) expect(it).toMatchObject(posted.get(deviceIds[1]!)!.get(Date.parse(it.recorded_at))![kind])
    }
  } finally {
    hub.proc.kill('SIGTERM')
    await hub.proc.exited
  }
  expectSealedWhole(dbPath)
}, 120_000)
