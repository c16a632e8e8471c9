import { Database } from 'bun:sqlite'
import { beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { releaseBefore, releaseExecutable } from '../../../scripts/bench/releases'
import { evolve, rng } from '../../../scripts/bench/storage-samples'
import { ensureBinary, freePort, tempDir } from '../../helpers/binary'
import { hardwareSample, networkSample } from '../../helpers/samples'

/**
 * Upgrading in place and crashing while converting, against the executables: a database is
 * filled by the previous release (built from the commit before the one that added the blocks'
 * migration), then the current dist/vigil starts on it and converts it in the background. It is
 * killed with SIGKILL three times while it converts (each time after reading every page, which
 * takes a fraction of the ~50 blocks' conversion) and started again; the file stays intact and
 * every history page reads back, byte for byte, what the previous release answered, while
 * converting and after.
 */

const previous = releaseBefore('src/modules/metrics/metrics.block.ts')
/** the release whose blocks keep their nested minutes as JSON */
const beforeColumns = releaseBefore('src/modules/metrics/metrics.minutes.codec.ts')
const previousExecutable = (commit = previous) => releaseExecutable(commit)

async function start(exe: string, cwd: string, env: Record<string, string>) {
  const port = freePort()
  const proc = Bun.spawn([exe, 'serve'], {
    cwd,
    env: { PATH: process.env.PATH ?? '', VIGIL_PORT: String(port), VIGIL_HOST: '127.0.0.1', VIGIL_LOG_FORMAT: 'json', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const base = `http://127.0.0.1:${port}`
  for (let i = 0; i < 200; i++) {
    if (proc.exitCode !== null) break
    try {
      if ((await fetch(`${base}/health`)).ok) return { proc, base }
    } catch {
      // not listening yet
    }
    await Bun.sleep(50) // waiting for a process to listen, not for time to pass
  }
  proc.kill('SIGKILL')
  throw new Error(`vigil did not start: ${await new Response(proc.stderr).text()}`)
}

/** Collector-like batches every 10 s, each with extra fields of random floats (any bits). */
function batches(start: number, count: number) {
  const r = rng(42)
  const bits = new Uint32Array(2)
  const anyFloat = () => {
    bits[0] = r() * 2 ** 32
    bits[1] = (r() * 0x7fe00000) >>> 0
    return new Float64Array(bits.buffer)[0]!
  }
  return evolve({ hardware: hardwareSample(1), network: networkSample(1) } as never, count, start, 10_000, 42).map((s) => ({
    ...s,
    hardware: { ...s.hardware, vendor_extra: { v: [anyFloat(), anyFloat(), anyFloat()], tag: `t${Math.floor(r() * 9)}` } },
    network: { ...s.network, probe: { rtt: anyFloat() } },
  }))
}

const env = (dataDir: string) => ({
  VIGIL_DATA_DIR: dataDir,
  VIGIL_RATE_LIMIT_FREE: '1000000',
  VIGIL_OWN_RATE_LIMIT: '1000000',
  VIGIL_RATE_LIMIT_ANONYMOUS: '1000000',
})

beforeAll(() => void ensureBinary(), 120_000)

/** Calls to whichever hub `base()` names at the time: JSON in, status and text out. */
function hubCalls(base: () => string) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(base() + path, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: res.status, text: await res.text() }
  }
}
type Call = ReturnType<typeof hubCalls>

/** The operator registered (`login` signs in afresh), a collector key, and one device of it. */
async function operatorWithDevice(call: Call) {
  const json = async (...a: Parameters<Call>) => JSON.parse((await call(...a)).text)
  const credentials = { email: 'op@example.test', password: 'correct horse battery' }
  await call('POST', '/v1/auth/register', credentials)
  const login = async () => ({ authorization: `Bearer ${(await json('POST', '/v1/auth/login', credentials)).access_token}` })
  const key = await json('POST', '/v1/auth/api-keys', { name: 'collector' }, await login())
  const collector = { 'x-api-key': key.api_key as string }
  const device = await json('POST', '/v1/clients/me/devices', { hostname: 'h', os: 'linux', os_version: '6', arch: 'x64', fingerprint: 'fp' }, collector)
  return { login, collector, deviceId: device.device_id as string }
}

describe('an instance of the previous release upgraded in place', () => {
  test.skipIf(!previous)(
    'converts in the background, survives kill -9 while converting, and reads every sample back as the previous release did',
    async () => {
      const cwd = tempDir('vigil-upgrade-')
      const dataDir = join(cwd, 'data')
      let server = await start(previousExecutable(), cwd, env(dataDir))
      const call = hubCalls(() => server.base)
      const json = async (...a: Parameters<Call>) => JSON.parse((await call(...a)).text)
      const { login, collector, deviceId } = await operatorWithDevice(call)
      const user = await login()
      const samples = batches(Date.now() - 10 * 3_600_000, 2_400)
      for (let i = 0; i < samples.length; i += 100)
        expect((await call('POST', '/v1/metrics/bulk', { items: samples.slice(i, i + 100) }, collector)).status).toBe(201)

      const pages = async () => {
        const out: string[] = []
        for (const kind of ['hardware', 'network'])
          for (let offset = 0; offset < samples.length; offset += 1000) {
            const r = await call('GET', `/v1/metrics/${kind}/${deviceId}?limit=1000&offset=${offset}`, undefined, user)
            expect(r.status).toBe(200)
            out.push(r.text)
          }
        return out
      }
      const before = await pages()
      expect(JSON.parse(before[0]!).items).toHaveLength(1000)
      server.proc.kill('SIGTERM')
      await server.proc.exited

      // the current release: killed three times while it converts, then left to finish
      for (let round = 0; round < 3; round++) {
        server = await start(ensureBinary(), cwd, env(dataDir))
        // reads see every sample while the conversion runs
        expect(await pages()).toEqual(before)
        server.proc.kill('SIGKILL')
        await server.proc.exited
        const db = new Database(join(dataDir, 'vigil.db'))
        expect(db.query<{ integrity_check: string }, []>('PRAGMA integrity_check').get()!.integrity_check).toBe('ok')
        db.close()
      }
      server = await start(ensureBinary(), cwd, env(dataDir))
      // /health reports the conversion's progress; it is done when no device is behind
      let converting = -1
      for (let i = 0; i < 1200 && converting !== 0; i++) {
        converting = (await json('GET', '/health')).storage.converting_devices
        if (converting) await Bun.sleep(50) // waiting for the server's background work, not for time to pass
      }
      expect(converting).toBe(0)
      expect(await pages()).toEqual(before)
      server.proc.kill('SIGTERM')
      await server.proc.exited

      const db = new Database(join(dataDir, 'vigil.db'))
      const unsealed = db.query<{ n: number }, [number]>(
        'SELECT count(*) AS n FROM metric_samples WHERE (hw_rest IS NOT NULL OR net_rest IS NOT NULL) AND ts < ?',
      )
      // everything older than the newest hour and ten minutes is in its long-lived form
      expect(unsealed.get(Date.now() - 70 * 60_000)!.n).toBe(0)
      // every sample is over three hours old: each ten minutes they span is one block (40 or 41, as the start falls)
      const spans = new Set(samples.map((x) => Math.floor(Date.parse(x.recorded_at as string) / 600_000))).size
      expect(db.query<{ n: number }, []>('SELECT count(*) AS n FROM metric_block_index').get()!.n).toBe(spans)
      // the space the rows' texts took is free in the file (the retention job's vacuum gives it
      // back): the rows were moved out and back without them, not emptied in place
      const texts = samples.reduce((n, x) => n + JSON.stringify(x.hardware).length + JSON.stringify(x.network).length, 0)
      const free = db.query<{ n: number }, []>('SELECT freelist_count * page_size AS n FROM pragma_freelist_count, pragma_page_size').get()!.n
      expect(free).toBeGreaterThan(texts / 2)
      db.close()
    },
    300_000,
  )
})

describe('blocks sealed by the release before the nested minutes were columns', () => {
  test.skipIf(!beforeColumns)(
    'charts of nested families read the same after the upgrade, from the JSON that release stored, and from columns once sealed again',
    async () => {
      const cwd = tempDir('vigil-upgrade-minutes-')
      const dataDir = join(cwd, 'data')
      let server = await start(previousExecutable(beforeColumns), cwd, env(dataDir))
      const call = hubCalls(() => server.base)
      const { login, collector, deviceId } = await operatorWithDevice(call)
      // four hours, 2 to 6 h old, with per-core loads and partitions that move
      const end = Date.now() - 2 * 3_600_000
      const samples = batches(end - 4 * 3_600_000, 1_440)
      for (let i = 0; i < samples.length; i += 240)
        expect((await call('POST', '/v1/metrics/bulk', { items: samples.slice(i, i + 240) }, collector)).status).toBe(201)
      // a day's charts up to 90 minutes past the samples: from the oldest one, 33 or 34 buckets of
      // 10 minutes cut into 10 slots of a minute each, by both releases
      const to = end + 90 * 60_000
      const range = `start=${new Date(to - 86_400_000).toISOString()}&end=${new Date(to).toISOString()}`
      const charts = async () => {
        const user = await login()
        const out: string[] = []
        for (const q of ['kind=hardware&fields=cpu_per_core,disk_partitions', 'kind=network&fields=wifi,interfaces']) {
          const r = await call('GET', `/v1/metrics/series/${deviceId}?${q}&${range}`, undefined, user)
          expect(r.status).toBe(200)
          out.push(r.text)
        }
        return out
      }
      const indexed = <T>(sql: string, ...args: number[]): T => {
        const db = new Database(join(dataDir, 'vigil.db'), { readonly: true })
        const row = db.query<T, number[]>(sql).get(...args)!
        db.close()
        return row
      }
      const blocks = () => indexed<{ n: number }>('SELECT count(*) AS n FROM metric_block_index').n
      /** where a block's bytes are: another place once it is sealed again */
      const place = (ts: number) => JSON.stringify(indexed('SELECT file, at FROM metric_block_index WHERE start = ?', Math.floor(ts / 600_000) * 600_000))
      // a start seals what is an hour old: the earlier release seals the four hours
      server.proc.kill('SIGTERM')
      await server.proc.exited
      server = await start(previousExecutable(beforeColumns), cwd, env(dataDir))
      const spans = new Set(samples.map((x) => Math.floor(Date.parse(x.recorded_at as string) / 600_000))).size
      for (let i = 0; i < 600 && blocks() < spans; i++) await Bun.sleep(50) // waiting for the server's sealing, not for time to pass
      expect(blocks()).toBe(spans)
      const before = await charts()
      expect(JSON.parse(before[0]!).values['cpu_per_core:0'].filter((v: number | null) => v !== null).length).toBeGreaterThan(20)
      expect(Object.keys(JSON.parse(before[1]!).values).length).toBeGreaterThan(0)
      server.proc.kill('SIGTERM')
      await server.proc.exited

      server = await start(ensureBinary(), cwd, env(dataDir))
      expect(await charts()).toEqual(before)
      // a late sample seals its block again, now with its minutes as columns; the charts answer as before
      // 5 s after a sample of the same minute (one in its minute's last 5 s would make it the next minute's first)
      const earlier = samples.slice(100).find((x) => Date.parse(x.recorded_at as string) % 60_000 < 55_000)!
      const lateAt = Date.parse(earlier.recorded_at as string) + 5_000
      const sealedAt = place(lateAt)
      expect((await call('POST', '/v1/metrics/bulk', { items: [{ ...earlier, recorded_at: new Date(lateAt).toISOString() }] }, collector)).status).toBe(201)
      server.proc.kill('SIGTERM')
      await server.proc.exited
      server = await start(ensureBinary(), cwd, env(dataDir))
      for (let i = 0; i < 600 && place(lateAt) === sealedAt; i++) await Bun.sleep(50) // waiting for the server's sealing, not for time to pass
      expect(place(lateAt)).not.toBe(sealedAt)
      const after = await charts()
      server.proc.kill('SIGTERM')
      await server.proc.exited
      // the late sample is not the first of its minute: the charts are unchanged
      expect(after).toEqual(before)
    },
    300_000,
  )
})
