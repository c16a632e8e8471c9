import { beforeAll, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { readRecords } from '../../src/modules/metrics/metrics.hot.records'
import { ensureBinary, startBinary, tempDir } from '../helpers/binary'

/**
 * kill -9 in the middle of a stream of writes: every metric the server acknowledged with 201
 * must be stored afterwards, in the database or in the newest samples' record files (group
 * commit answers only after both). The stream runs
 * long enough for the checkpoint thread to be copying the WAL back when the kill lands.
 */
beforeAll(() => void ensureBinary(), 60_000) // a fresh clone builds it first

test('no acknowledged write is lost when the server is killed with SIGKILL', async () => {
  const cwd = tempDir('vigil-kill-')
  const dataDir = join(cwd, 'data')
  const env = { VIGIL_DATA_DIR: dataDir, VIGIL_RATE_LIMIT_FREE: '1000000', VIGIL_RATE_LIMIT_ANONYMOUS: '1000000', VIGIL_LOG_LEVEL: 'debug' }
  const { proc, base } = await startBinary({ cwd, env })
  const call = async (method: string, path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(base + path, { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
    return { status: res.status, body: (await res.json()) as any }
  }
  await call('POST', '/v1/auth/register', { email: 'op@example.test', password: 'correct horse battery' })
  const login = await call('POST', '/v1/auth/login', { email: 'op@example.test', password: 'correct horse battery' })
  const key = await call('POST', '/v1/auth/api-keys', { name: 'collector' }, { authorization: `Bearer ${login.body.access_token}` })
  const headers = { 'x-api-key': key.body.api_key }
  const device = await call('POST', '/v1/clients/me/devices', { hostname: 'h', os: 'linux', os_version: '6', arch: 'x64', fingerprint: 'fp' }, headers)
  expect(device.status).toBe(201)

  const acked: string[] = []
  let stop = false
  const writers = Array.from({ length: 16 }, async () => {
    for (let i = 0; i < 100_000 && !stop; i++) {
      try {
        const res = await call('POST', '/v1/metrics/batch', { hardware: { cpu_percent: i % 100 }, network: { upload_mbps: 1 } }, headers)
        if (res.status === 201) acked.push(res.body.hardware.id, res.body.network.id)
      } catch {
        return // the server is gone
      }
    }
  })
  const started = Date.now()
  // two checkpoint cycles (every 5 s, src/cli/serve.ts)
  while (acked.length < 400 || Date.now() - started < 11_000) await Bun.sleep(5)
  proc.kill('SIGKILL')
  stop = true
  await Promise.all(writers)
  await proc.exited
  const log = await new Response(proc.stdout).text()
  expect(log).toContain('"msg":"wal checkpoint","where":"worker"')

  const db = new Database(join(dataDir, 'vigil.db'))
  const tables = db
    .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%metric%'")
    .all()
    .map((r) => r.name)
  const stored = new Set<string>()
  for (const table of tables) {
    const cols = db
      .query<{ name: string }, []>(`PRAGMA table_info(${table})`)
      .all()
      .map((c) => c.name)
    if (!cols.includes('id')) continue
    for (const row of db.query<{ id: string | number }, []>(`SELECT id FROM ${table}`).all()) stored.add(String(row.id))
  }
  db.close()
  // the newest samples' records, in their segment files beside the database
  for (const r of readRecords(join(dataDir, 'vigil.db'))) stored.add(String(r.sampleId))
  const lost = acked.filter((id) => !stored.has(String(id)))
  expect(acked.length).toBeGreaterThanOrEqual(400)
  expect(lost).toEqual([])

  // started again on what the kill left (a record may be cut short at the end of its file): the
  // next sample is stored after the last whole record, and everything acknowledged still reads back
  const again = await startBinary({ cwd, env })
  try {
    const res = await fetch(`${again.base}/v1/metrics/hardware`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ cpu_percent: 42 }),
    })
    expect(res.status).toBe(201)
    acked.push(((await res.json()) as { id: string }).id)
  } finally {
    again.proc.kill('SIGTERM')
  }
  expect(await again.proc.exited).toBe(0)
  const after = new Database(join(dataDir, 'vigil.db'))
  const kept = new Set(
    after
      .query<{ id: number }, []>('SELECT id FROM metric_samples')
      .all()
      .map((r) => String(r.id)),
  )
  after.close()
  for (const r of readRecords(join(dataDir, 'vigil.db'))) kept.add(String(r.sampleId))
  expect(acked.filter((id) => !kept.has(String(id)))).toEqual([])
}, 60_000)
