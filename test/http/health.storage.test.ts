import { describe, expect, test } from 'bun:test'
import { closeSync, openSync, writeSync } from 'node:fs'
import { openAndMigrate } from '../../src/cli/open'
import { testConfig } from '../../src/config'
import { memoryLogger } from '../../src/lib/logger'
import { TRANSIENT_MS } from '../../src/db/storage-health'
import { fileSegments, type SegmentFiles } from '../../src/modules/metrics/metrics.segment-files'
import { hotLogDir } from '../../src/modules/metrics/metrics.hot.records'
import { createHotStore } from '../../src/modules/metrics/metrics.hot.store'
import { testApp } from '../helpers/app'
import { createTenant } from '../helpers/fixtures'
import { insertDevice } from '../helpers/devices'
import { tempDirs } from '../helpers/temp-dirs'

const tempDir = tempDirs('vigil-storage-')

const open = (dir: string) => openAndMigrate(testConfig({ dataDir: dir }), memoryLogger().logger, 1)

/** A tenant with enough devices that their rows fill a few dozen pages, on a database in a file. */
async function filled(dir: string, before: (db: ReturnType<typeof open>) => void = () => {}) {
  const db = open(dir)
  before(db)
  const t = testApp({ db, config: { rateLimits: { free: 1e6, pro: 1e6, enterprise: 1e6, anonymous: 1e6 } } })
  const a = await createTenant(t, { maxDevices: 10_000 })
  const insert = db.sqlite.prepare(
    'INSERT INTO devices (id, client_id, fingerprint, hostname, os, os_version, arch, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 1, 1)',
  )
  db.sqlite.transaction(() => {
    for (let i = 0; i < 3000; i++)
      insert.run(`dev_${String(i).padStart(6, '0')}`, a.clientId, `fp-${i}`, `host-${i}-${'x'.repeat(120)}`, 'linux', '6.8', 'x86_64')
  })()
  insert.finalize()
  return { db, t, a }
}

/** Overwrites `count` of a table's leaf pages from the middle of the file, as a failing SD card might. */
function damage(db: ReturnType<typeof open>, table: string, count: number): () => void {
  const pages = db.sqlite
    .query<{ pageno: number }, [string]>("SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno")
    .all(table)
    .map((r) => r.pageno)
  const pageSize = db.sqlite.query<{ page_size: number }, []>('PRAGMA page_size').get()!.page_size
  const from = Math.floor((pages.length - count) / 2)
  const path = db.sqlite.filename
  return () => {
    const fd = openSync(path, 'r+')
    for (const p of pages.slice(from, from + count)) writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (p - 1) * pageSize)
    closeSync(fd)
  }
}

describe('storage faults', () => {
  test('pages damaged after a clean stop: reads answer database_corrupt (not internal_error), /health 503 names it', async () => {
    const dir = tempDir()
    const first = await filled(dir)
    const overwrite = damage(first.db, 'devices', 50)
    first.db.close()
    overwrite()

    const db = open(dir) // a clean stop: no whole-file check, so the start succeeds
    const t = testApp({ db })
    expect((await t.request('GET', '/health')).status).toBe(200) // nothing has read the damage yet
    const res = await t.request('GET', '/v1/clients/me/devices', { headers: first.a.userHeaders })
    expect(res.status).toBe(503)
    expect(res.body.error.code).toBe('database_corrupt')
    expect(t.logs.some((l) => l.includes('storage fault'))).toBe(true)
    const health = await t.request('GET', '/health')
    expect(health.status).toBe(503)
    expect(health.body).toMatchObject({ status: 'degraded', database: { ok: false, fault: 'corrupt' } })
    expect(health.body.database.message).toContain('malformed')
    t.clock.advance(TRANSIENT_MS * 10)
    expect((await t.request('GET', '/health')).status).toBe(503) // stays until the operator acts
    db.close()
  })

  test('the hourly integrity check finds the damage before any request does', async () => {
    const dir = tempDir()
    const first = await filled(dir)
    const overwrite = damage(first.db, 'devices', 50)
    first.db.close()
    overwrite()

    const db = open(dir)
    const t = testApp({ db })
    const job = t.jobs.find((j) => j.name === 'health.integrity-check')!
    expect(job.cron).toBe('0 23 * * * *')
    await job.run()
    const health = await t.request('GET', '/health')
    expect(health.status).toBe(503)
    expect(health.body.database.fault).toBe('corrupt')
    expect(t.logs.some((l) => l.includes('the database is damaged'))).toBe(true)
    db.close()
  })

  test('a full disk: the write answers storage_full with Retry-After, /health is degraded until it passes, close does not throw', async () => {
    const dir = tempDir()
    const { db, t, a } = await filled(dir)
    // SQLite's page limit stands in for the disk: the next page the file needs is refused with SQLITE_FULL
    const pages = db.sqlite.query<{ page_count: number }, []>('PRAGMA page_count').get()!.page_count
    db.sqlite.run(`PRAGMA max_page_count = ${pages}`)
    let res = await t.request('POST', '/v1/clients/me/devices', {
      body: { fingerprint: 'fp-new', hostname: 'h'.repeat(200), os: 'linux', os_version: '6.8', arch: 'x86_64' },
      headers: a.keyHeaders,
    })
    for (let i = 0; i < 200 && res.status === 201; i++) {
      res = await t.request('POST', '/v1/clients/me/devices', {
        body: { fingerprint: `fp-new-${i}`, hostname: `${i}-${'h'.repeat(200)}`, os: 'linux', os_version: '6.8', arch: 'x86_64' },
        headers: a.keyHeaders,
      })
    }
    expect(res.status).toBe(503)
    expect(res.body.error.code).toBe('storage_full')
    expect(res.headers.get('retry-after')).toBe('60')
    const health = await t.request('GET', '/health')
    expect(health.status).toBe(503)
    expect(health.body.database).toMatchObject({ ok: false, fault: 'full' })
    t.clock.advance(TRANSIENT_MS + 1)
    expect((await t.request('GET', '/health')).status).toBe(200) // space freed, no new failure
    const warnings: string[] = []
    expect(() => db.close((what) => void warnings.push(what))).not.toThrow()
  })

  test('a full disk under ingest: every sample answers 201 or storage_full, never internal_error, and each 201 is stored', async () => {
    const dir = tempDir()
    // the samples' records go to files beside the database: a disk with room for a few groups of them
    let room = Number.POSITIVE_INFINITY
    const { db, t, a } = await filled(dir, (db) => {
      const files = fileSegments(hotLogDir(db.sqlite.filename))
      const filling: SegmentFiles = {
        ...files,
        write(segment, at, bytes) {
          if (bytes.length > room) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
          room -= bytes.length
          files.write(segment, at, bytes)
        },
      }
      createHotStore(db.sqlite, { files: filling })
    })
    const device = insertDevice(t, a.clientId)
    const pages = db.sqlite.query<{ page_count: number }, []>('PRAGMA page_count').get()!.page_count
    db.sqlite.run(`PRAGMA max_page_count = ${pages + 2}`)
    room = 4_000
    const headers = { ...a.keyHeaders, 'x-device-id': device }
    const statuses: Record<string, number> = {}
    let created = 0
    for (let round = 0; round < 20; round++) {
      t.clock.advance(1000)
      // concurrent requests share one group commit
      const answers = await Promise.all(Array.from({ length: 20 }, () => t.request('POST', '/v1/metrics/hardware', { body: { cpu_percent: 1 }, headers })))
      for (const r of answers) {
        const key = `${r.status} ${r.body?.error?.code ?? ''}`.trim()
        statuses[key] = (statuses[key] ?? 0) + 1
        if (r.status === 201) created++
      }
    }
    expect(Object.keys(statuses).sort()).toEqual(['201', '503 storage_full'])
    const stored = db.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM metric_samples').get()!.n
    expect(stored).toBeGreaterThanOrEqual(created) // nothing acknowledged is missing
    db.close()
  })
})
