import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { SQL } from 'bun'
import { MINUTE_TABLES, SQLITE_ONLY_METRICS } from '../../src/db/pg/copy.samples'
import { copyPlan } from '../../src/db/pg/copy'
import { canonical, type PgValue, toPgValue } from '../../src/db/pg/copy.values'
import { deriveSecretKey, openSecret } from '../../src/lib/secret-box'
import { hardwareSample, networkSample } from '../helpers/samples'
import { ensureBinary, freePort, startBinary, tempDir } from '../helpers/binary'
import { type FreshDatabase, postgresForTests } from '../helpers/postgres'
import { minuteRows } from '../modules/metrics/minute-rows'

/**
 * `vigil copy --to` through the executable: an instance populated through its API (accounts,
 * sessions, keys, devices with sealed and hot samples, channels with secrets, webhooks, alert
 * rules, checks with results, a status page) is stopped, copied, and every table compared row for
 * row on both engines, the values normalised as the twins declare them.
 */
const pg = postgresForTests()
const made: FreshDatabase[] = []
const stops: (() => void)[] = []
beforeAll(() => void ensureBinary(), 120_000)
afterAll(async () => {
  for (const stop of stops.splice(0)) stop()
  for (const db of made) await db.drop()
})

const ENV = { VIGIL_SIGNUP: 'open', VIGIL_OUTBOUND_ALLOW_LOCAL: 'true', VIGIL_RATE_LIMIT_FREE: '1000000', VIGIL_OWN_RATE_LIMIT: '1000000' }
const HOUR = 3_600_000

function copy(dataDir: string, args: string[], env: Record<string, string> = {}) {
  const r = Bun.spawnSync([ensureBinary(), 'copy', ...args], { cwd: tempDir(), env: { PATH: process.env.PATH ?? '', VIGIL_DATA_DIR: dataDir, ...env } })
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() }
}

function api(base: string) {
  let headers: Record<string, string> = {}
  const call = async (method: string, path: string, body?: unknown, extra: Record<string, string> = {}) => {
    const res = await fetch(base + path, {
      method,
      headers: { 'content-type': 'application/json', ...headers, ...extra },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.text()
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`)
    return text ? JSON.parse(text) : undefined
  }
  return { call, signIn: (token: string) => void (headers = { authorization: `Bearer ${token}` }) }
}

/** A data dir with something in every domain the API reaches, and the hub stopped. */
async function populatedInstance() {
  const cwd = tempDir('vigil-copy-')
  const dataDir = join(cwd, 'data')
  const env = { VIGIL_DATA_DIR: dataDir, ...ENV }
  let hub = await startBinary({ cwd, env })
  stops.push(() => hub.proc.kill())
  const site = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('shop is open') })
  stops.push(() => site.stop(true))

  let a = api(hub.base)
  const creds = { email: 'ops@example.test', password: 'correct horse battery' }
  await a.call('POST', '/v1/auth/register', creds)
  a.signIn((await a.call('POST', '/v1/auth/login', creds)).access_token)
  await a.call('POST', '/v1/auth/login', creds) // a second session
  const key = (await a.call('POST', '/v1/auth/api-keys', { name: 'collector' })).api_key as string
  await a.call('POST', '/v1/auth/api-keys', { name: 'spare' })
  const device = await a.call(
    'POST',
    '/v1/clients/me/devices',
    { hostname: 'pi-ß-🚀', os: 'linux', os_version: '6.8', arch: 'arm64', fingerprint: 'fp-pi' },
    { 'x-api-key': key },
  )
  const deviceId = device.device_id as string
  // three hours of samples: the two older hours are sealed into blocks when the hub starts again
  const end = Math.floor(Date.now() / 60_000) * 60_000 - 60_000
  const items = []
  for (let ts = end - 3 * HOUR, i = 0; ts <= end; ts += 60_000, i++) {
    items.push({ recorded_at: new Date(ts).toISOString(), hardware: hardwareSample(i), network: i % 7 === 3 ? null : networkSample(i) })
  }
  await a.call('POST', '/v1/metrics/bulk', { device_id: deviceId, items }, { 'x-api-key': key })

  const channel = await a.call('POST', '/v1/channels', {
    name: 'ops',
    kind: 'webhook',
    config: { url: `http://127.0.0.1:${site.port}/notify`, authorization: 'Bearer channel-secret-42' },
  })
  await a.call('POST', '/v1/webhooks/endpoints', { url: `http://127.0.0.1:${site.port}/hook`, event_types: ['device.registered'] })
  await a.call('POST', '/v1/alerts/rules', {
    name: 'CPU hot',
    metric: 'cpu_percent',
    operator: '>',
    threshold: 90.5,
    for_seconds: 0,
    channel_ids: [channel.id],
  })
  const check = await a.call('POST', '/v1/checks', {
    name: 'shop',
    kind: 'http',
    settings: { url: `http://127.0.0.1:${site.port}/`, keyword: 'open' },
    interval_s: 10,
    down_after: 1,
    up_after: 1,
  })
  await a.call('POST', '/v1/status-pages', {
    slug: 'acme',
    title: 'Acme — état des services',
    groups: [{ name: 'Servers', items: [{ type: 'device', id: deviceId, key: 'pi' }] }],
  })
  // the hub runs the check on its own: wait for its first result, not for time
  while ((await a.call('GET', `/v1/checks/${check.id}`)).last_checked_at == null) await Bun.sleep(50)

  hub.proc.kill('SIGTERM')
  await hub.proc.exited
  hub = await startBinary({ cwd, env })
  a = api(hub.base)
  while ((await a.call('GET', '/health')).storage.converting_devices !== 0) await Bun.sleep(50) // the sealing job, not time
  a.signIn((await a.call('POST', '/v1/auth/login', creds)).access_token)
  // a hot sample after the sealing
  await a.call('POST', '/v1/metrics/batch', { hardware: hardwareSample(1), network: networkSample(1) }, { 'x-api-key': key, 'x-device-id': deviceId })
  return { hub, dataDir, channelId: channel.id as string }
}

/**
 * Each table's rows on both engines, each row as the twins' canonical values, sorted; for SQLite's
 * own metric tables, which the copy leaves empty on PostgreSQL, the PostgreSQL side is compared with
 * nothing (the source's rows are kept apart, in `source`).
 */
/** A table's rows on the source as PostgreSQL hubs read them: SQLite keeps the devices' last reports apart (device_seen), the copy puts them into the devices rows. */
function sourceRows(t: ReturnType<typeof copyPlan>[number]): string {
  if (t.name !== 'devices') return `SELECT ${t.columns.map((c) => `"${c.name}"`).join(', ')} FROM "${t.name}"`
  const cols = t.columns.map((c) =>
    c.name === 'last_seen_at' ? 'max(coalesce(d.last_seen_at, s.at), coalesce(s.at, d.last_seen_at)) AS last_seen_at' : `d."${c.name}"`,
  )
  return `SELECT ${cols.join(', ')} FROM devices d LEFT JOIN device_seen s ON s.seq = d.seq`
}

/**
 * SQLite codes the 1-minute tier per ten minutes (its rows are not SELECTable), so its minutes are
 * read as the hub reads them; the rollup job runs at second 35 of every minute, so whether the
 * hub rolled any before it stopped depends on the clock, and the comparison holds either way.
 */
function sourceRecords(sqlite: Database, t: ReturnType<typeof copyPlan>[number]): Record<string, unknown>[] {
  const kind = MINUTE_TABLES[t.name]
  if (kind) return minuteRows(sqlite, kind)
  return sqlite.query(sourceRows(t)).safeIntegers(true).all() as Record<string, unknown>[]
}

async function bothSides(dataDir: string, url: string) {
  const path = join(dataDir, 'vigil.db')
  const sqlite = new Database(path, { readwrite: true, create: false })
  const sql = new SQL(url, { max: 1 })
  const out = new Map<string, { sqlite: string[]; pg: string[]; source?: string[] }>()
  sqlite.run('BEGIN')
  try {
    for (const t of copyPlan()) {
      const list = t.columns.map((c) => `"${c.name}"`).join(', ')
      const left = sourceRecords(sqlite, t).map((r) => t.columns.map((c) => canonical(c.type, toPgValue(c.type, r[c.name]))).join('|'))
      const right = ((await sql.unsafe(`SELECT ${list} FROM "${t.name}"`)) as Record<string, unknown>[]).map((r) =>
        t.columns.map((c) => canonical(c.type, r[c.name] as PgValue)).join('|'),
      )
      out.set(t.name, SQLITE_ONLY_METRICS.has(t.name) ? { sqlite: [], pg: right, source: left } : { sqlite: left.sort(), pg: right.sort() })
    }
  } finally {
    sqlite.run('ROLLBACK')
    sqlite.close()
    await sql.close()
  }
  return out
}

describe('vigil copy --to postgres://…', () => {
  test.skipIf(!pg.url)(
    `copies a populated instance row for row, refuses a second copy without --replace, and a running hub ${pg.skipReason}`,
    async () => {
      const { hub, dataDir, channelId } = await populatedInstance()
      const db = await pg.freshDatabase()
      made.push(db)
      const password = decodeURIComponent(new URL(db.url).password)

      // the hub still holds the data dir
      const held = copy(dataDir, ['--to', db.url])
      expect(held.code).toBe(2)
      expect(held.err.trim().split('\n')).toHaveLength(1)
      expect(held.err).toContain('is in use by a running vigil')
      hub.proc.kill('SIGTERM')
      await hub.proc.exited

      const first = copy(dataDir, ['--to', db.url])
      expect(first.err).toBe('')
      expect(first.code).toBe(0)
      expect(first.out).toContain('migrated the target')
      // every sample of the source (181 minutes of the bulk, and the hot batch), in PostgreSQL's form, verified
      expect(first.out).toMatch(/^ {2}metric_records +182 rows +[\d.]+ s {2}checksum \d+ matches$/m)
      expect(first.out).toContain('every table verified: row counts and row checksums match')
      expect(first.out).toContain(
        "carry the secrets over to every hub that serves the copy, or sessions end and stored channel, check and provider secrets can no longer be read: the data dir's jwt-secret and secret.key",
      )
      expect(first.out).not.toContain(password)

      const tables = await bothSides(dataDir, db.url)
      for (const [name, rows] of tables) expect([name, rows.pg]).toEqual([name, rows.sqlite])
      // what the instance holds made it across: nothing here is an empty table compared with an empty table
      for (const name of [
        'clients',
        'users',
        'members',
        'refresh_tokens',
        'api_keys',
        'devices',
        'channels',
        'webhook_endpoints',
        'alert_rules',
        'checks',
        'check_places',
        'status_pages',
      ]) {
        expect([name, tables.get(name)!.pg.length > 0]).toEqual([name, true])
      }
      expect(tables.get('refresh_tokens')!.pg.length).toBeGreaterThanOrEqual(3)
      // the source held its samples in SQLite's own tables, which PostgreSQL leaves empty (bothSides)
      expect(tables.get('metric_block_index')!.source!.length).toBeGreaterThan(0)

      // the channel's sealed secret opens with the data dir's key, read from PostgreSQL
      const sql = new SQL(db.url, { max: 1 })
      try {
        const [row] = await sql`SELECT client_id, secrets_enc FROM channels WHERE id = ${channelId}`
        const key = deriveSecretKey(readFileSync(join(dataDir, 'secret.key'), 'utf8').trim())
        expect(JSON.parse(openSecret(key, row.secrets_enc, `channel:${row.client_id}:${channelId}`)!)).toEqual({ authorization: 'Bearer channel-secret-42' })
      } finally {
        await sql.close()
      }

      const again = copy(dataDir, ['--to', db.url])
      expect(again.code).toBe(2)
      expect(again.err.trim().split('\n')).toHaveLength(1)
      expect(again.err).toContain('the target already holds data (')
      expect(again.err).toContain('add --replace')

      // the target from VIGIL_DATABASE_URL, the password kept off the command line
      const replaced = copy(dataDir, ['--replace'], { VIGIL_DATABASE_URL: db.url })
      expect(replaced.out).toContain(`to ${db.url.replace(`:${new URL(db.url).password}@`, ':***@')} (vigil`)
      expect(replaced.code).toBe(0)
      const after = await bothSides(dataDir, db.url)
      for (const [name, rows] of after) expect([name, rows.pg]).toEqual([name, rows.sqlite])
    },
    180_000,
  )

  test('an unreachable server: exit 2, one line naming it, no password', () => {
    const dataDir = join(tempDir(), 'data')
    expect(Bun.spawnSync([ensureBinary(), 'migrate'], { env: { PATH: process.env.PATH ?? '', VIGIL_DATA_DIR: dataDir } }).exitCode).toBe(0)
    const url = `postgres://vigil:hunter22@127.0.0.1:${freePort()}/vigil`
    const r = copy(dataDir, ['--to', url])
    expect(r.code).toBe(2)
    expect(r.err.trim()).toBe(
      `vigil: cannot connect to PostgreSQL at ${url.replace('hunter22', '***')}: connection refused (is the server running and listening there?)`,
    )
  })

  test('a database with a migration pending, or from a newer vigil, is refused before the target is touched', () => {
    const dataDir = join(tempDir(), 'data')
    Bun.spawnSync([ensureBinary(), 'migrate'], { env: { PATH: process.env.PATH ?? '', VIGIL_DATA_DIR: dataDir } })
    const url = `postgres://vigil:hunter22@127.0.0.1:${freePort()}/vigil`
    const db = new Database(join(dataDir, 'vigil.db'))
    const last = db.query<{ tag: string }, []>('SELECT max(tag) AS tag FROM __vigil_migrations').get()!.tag
    db.run('DELETE FROM __vigil_migrations WHERE tag = ?', [last])
    db.close()
    const pending = copy(dataDir, ['--to', url])
    expect(pending.code).toBe(2)
    expect(pending.err.trim()).toBe(`vigil: the database ${join(dataDir, 'vigil.db')} needs 1 migration this vigil brings: run "vigil migrate" first`)
    const again = new Database(join(dataDir, 'vigil.db'))
    again.run("INSERT INTO __vigil_migrations (tag, hash, applied_at) VALUES (?, 'h', 1), ('9999_future', 'h', 1)", [last])
    again.close()
    const newer = copy(dataDir, ['--to', url])
    expect(newer.err.trim()).toBe(`vigil: the database ${join(dataDir, 'vigil.db')} was migrated by a newer vigil (9999_future): copy it with that version`)
  })

  test.skipIf(!pg.url)(`a wrong password: one line with the server's reason, without the password ${pg.skipReason}`, () => {
    const dataDir = join(tempDir(), 'data')
    Bun.spawnSync([ensureBinary(), 'migrate'], { env: { PATH: process.env.PATH ?? '', VIGIL_DATA_DIR: dataDir } })
    const u = new URL(pg.url!)
    u.password = 'not-the-password-42'
    const r = copy(dataDir, ['--to', u.toString()])
    expect(r.code).toBe(2)
    expect(r.err.trim().split('\n')).toHaveLength(1)
    expect(r.err).toContain('password authentication failed')
    expect(r.err).not.toContain('not-the-password-42')
  })

  test('without --to, or with a URL that is not PostgreSQL, or without a database: one line, nothing made', () => {
    const dataDir = join(tempDir(), 'data')
    const help = copy(dataDir, ['--help'])
    expect(help.out).toContain('Usage: vigil copy --to postgres://USER:PASSWORD@HOST:5432/DATABASE [--replace] [--no-verify]')
    expect(help.out).toContain("carry the data dir's jwt-secret and secret.key")
    expect(copy(dataDir, []).err.trim()).toBe(
      'vigil: copy needs --to postgres://USER:PASSWORD@HOST:5432/DATABASE (the database to copy into), or VIGIL_DATABASE_URL set to it',
    )
    const mysql = copy(dataDir, ['--to', 'mysql://root:hunter22@db/vigil'])
    expect(mysql.code).toBe(2)
    expect(mysql.err).toContain('--to must start with postgres:// or postgresql://')
    expect(mysql.err).not.toContain('hunter22')
    const none = copy(dataDir, ['--to', 'postgres://u:p@127.0.0.1/vigil'])
    expect(none.err.trim()).toBe(`vigil: no database at ${join(dataDir, 'vigil.db')} (set --data-dir or VIGIL_DATA_DIR)`)
  })
})
