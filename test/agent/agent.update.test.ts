import { afterEach, describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { manualClock } from '../../src/lib/clock'
import { memoryLogger } from '../../src/lib/logger'
import type { Timers } from '../../src/lib/timers'
import { VERSION } from '../../src/version'
import { loadAgentConfig } from '../../src/agent/agent.config'
import { checkUpdateMarker, decide, type PublishedVersion, startUpdater, uncountStart } from '../../src/agent/agent.update'
import { readMarker, refusedVersions, selfCheck, writeMarker } from '../../src/agent/agent.update-install'
import type { Offer } from '../../src/agent/agent.update-install'
import { ensureBinary } from '../helpers/binary'
import { tempDirs } from '../helpers/temp-dirs'

const tempDir = tempDirs('vigil-agent-update-')
const sha256 = (data: string | Uint8Array) => new Bun.CryptoHasher('sha256').update(data).digest('hex')

/** an executable stand-in: answers `version` and `agent --once` as vigil does */
const standIn = (version: string, sample = '{"recorded_at":"2026-01-01T00:00:00Z","hardware":{},"network":{}}') =>
  `#!/bin/sh\ncase "$1" in\n  version) echo ${version} ;;\n  agent) echo '${sample}' ;;\n  *) exit 1 ;;\nesac\n`

const published = (version: string, extra: Partial<PublishedVersion> = {}): PublishedVersion => ({
  version,
  download_url: 'http://hub/download/vigil-linux-x64',
  sha256: 'a'.repeat(64),
  is_mandatory: false,
  ...extra,
})

/** timers that record their delays and fire on demand */
function recordingTimers() {
  const pending: { ms: number; fn: () => void; live: boolean }[] = []
  const timers: Timers = {
    after(ms, fn) {
      const t = { ms, fn, live: true }
      pending.push(t)
      return () => {
        t.live = false
      }
    },
  }
  const fire = (t: { fn: () => void; live: boolean }) => {
    t.live = false
    t.fn()
  }
  return { timers, live: () => pending.filter((t) => t.live), fire }
}

describe('which version to install', () => {
  test('only a newer one by semantic-version order, with a location and a checksum, not refused here', () => {
    expect(decide('1.9.0', published('1.10.0'), new Set())).toMatchObject({ offer: { version: '1.10.0' }, mandatory: false })
    expect(decide('1.10.0', published('1.9.9'), new Set())).toBeNull()
    expect(decide('1.0.0', published('1.0.0'), new Set())).toBeNull()
    expect(decide('1.0.0', published('1.0.0-rc.2'), new Set())).toBeNull()
    expect(decide('1.0.0-rc.1', published('1.0.0'), new Set())?.offer.version).toBe('1.0.0')
    expect(decide('1.0.0', published('2.0.0', { sha256: null }), new Set())).toBeNull() // published before checksums
    expect(decide('1.0.0', published('2.0.0', { download_url: null }), new Set())).toBeNull()
    expect(decide('1.0.0', published('2.0.0'), new Set(['2.0.0']))).toBeNull()
    expect(decide('1.0.0', published('2.0.0', { is_mandatory: true }), new Set())?.mandatory).toBe(true)
    expect(decide('1.0.0', null, new Set())).toBeNull()
  })
})

describe('when to install', () => {
  function updater(offers: PublishedVersion[], random = 0.5) {
    const dir = tempDir()
    const t = recordingTimers()
    const installs: Offer[] = []
    const updated: string[] = []
    const fetch = async () => {
      const next = offers.shift()
      return next ? Response.json(next) : new Response('{}', { status: 404 })
    }
    const u = startUpdater(
      { hub: 'http://hub', key: 'k', platform: 'linux-x64', currentVersion: '1.0.0', execPath: join(dir, 'vigil'), stateDir: dir, windowMs: 6 * 3_600_000 },
      {
        fetch,
        timers: t.timers,
        clock: manualClock(),
        log: memoryLogger().logger,
        random: () => random,
        install: async (offer) => {
          installs.push(offer)
        },
        onUpdated: (v) => updated.push(v),
      },
    )
    return { u, t, installs, updated }
  }

  test('a mandatory version is installed at the first check, then the agent restarts into it', async () => {
    const { u, installs, updated } = updater([published('1.1.0', { is_mandatory: true })])
    await u.check()
    await u.settled()
    expect(installs.map((o) => o.version)).toEqual(['1.1.0'])
    expect(updated).toEqual(['1.1.0'])
  })

  test('another waits a random delay within the window; a mandatory one published meanwhile goes at once', async () => {
    const { u, t, installs, updated } = updater([published('1.1.0'), published('1.1.0'), published('1.2.0', { is_mandatory: true })], 0.25)
    await u.check()
    expect(installs).toEqual([])
    expect(u.planned()).toBe('1.1.0')
    const plan = t.live().find((x) => x.ms === 1.5 * 3_600_000) // 0.25 of 6 h
    expect(plan).toBeDefined()
    await u.check() // the same version again: the plan stands, no second timer
    expect(t.live().filter((x) => x.ms === 1.5 * 3_600_000)).toHaveLength(1)
    await u.check() // mandatory: the plan is dropped and it installs now
    await u.settled()
    expect(installs.map((o) => o.version)).toEqual(['1.2.0'])
    expect(updated).toEqual(['1.2.0'])
    expect(plan!.live).toBe(false)
  })

  test('the window timer installs the planned version when it fires', async () => {
    const { u, t, installs, updated } = updater([published('1.1.0')], 0.9)
    await u.check()
    const plan = t.live().find((x) => x.ms === Math.floor(0.9 * 6 * 3_600_000))!
    t.fire(plan)
    await u.settled()
    expect(installs.map((o) => o.version)).toEqual(['1.1.0'])
    expect(updated).toEqual(['1.1.0'])
  })

  test('checks come at start and then every ~4 h with jitter; nothing published is nothing to do', async () => {
    const { u, t, installs } = updater([], 0)
    const first = t.live()
    expect(first.map((x) => x.ms)).toEqual([30_000])
    t.fire(first[0]!)
    // the check runs on promises only (the fetch stand-in answers at once): let them settle
    for (let i = 0; i < 100 && !t.live().length; i++) await Promise.resolve()
    expect(t.live().map((x) => x.ms)).toEqual([3 * 3_600_000]) // 4 h × 0.75 with random() = 0
    expect(installs).toEqual([])
    u.stop()
    expect(t.live()).toEqual([])
  })
})

describe('download, verify, self-check, swap', () => {
  let server: ReturnType<typeof Bun.serve> | null = null
  afterEach(() => {
    server?.stop(true)
    server = null
  })

  /** a hub on 127.0.0.1 that publishes `body` as `version` with checksum `sum` */
  function hub(version: string, body: string, sum = sha256(body), mandatory = true) {
    const seen: { path: string; key: string | null }[] = []
    server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch(req) {
        const url = new URL(req.url)
        seen.push({ path: url.pathname, key: req.headers.get('x-api-key') })
        if (url.pathname === '/v1/versions/linux-x64')
          return Response.json({ version, download_url: '/download/vigil-linux-x64', sha256: sum, is_mandatory: mandatory })
        if (url.pathname === '/download/vigil-linux-x64') return new Response(body)
        return new Response('not found', { status: 404 })
      },
    })
    return { url: `http://127.0.0.1:${server.port}`, seen }
  }

  function setup(hubUrl: string, maxBytes?: number) {
    const dir = tempDir()
    const execPath = join(dir, 'vigil')
    writeFileSync(execPath, standIn('1.0.0'), { mode: 0o755 })
    const updated: string[] = []
    const { logger, lines } = memoryLogger()
    const u = startUpdater(
      { hub: hubUrl, key: 'vk_test', platform: 'linux-x64', currentVersion: '1.0.0', execPath, stateDir: dir },
      {
        fetch: (url, init) => fetch(url, init),
        timers: recordingTimers().timers,
        clock: manualClock(),
        log: logger,
        onUpdated: (v) => updated.push(v),
        installOptions: { maxBytes },
      },
    )
    const run = (arg: string) => Bun.spawnSync([execPath, arg]).stdout.toString().trim()
    return { dir, execPath, u, updated, lines, run }
  }

  test('a verified executable replaces the running one, which is kept as .previous, with a marker for the next start', async () => {
    const h = hub('2.0.0', standIn('2.0.0'))
    const s = setup(h.url)
    await s.u.check()
    await s.u.settled()
    expect(s.run('version')).toBe('2.0.0')
    expect(
      Bun.spawnSync([`${s.execPath}.previous`, 'version'])
        .stdout.toString()
        .trim(),
    ).toBe('1.0.0')
    expect(readMarker(s.dir)).toMatchObject({ version: '2.0.0', from: '1.0.0', exec_path: s.execPath, starts: 0 })
    expect(s.updated).toEqual(['2.0.0'])
    expect(h.seen.map((x) => x.key)).toEqual(['vk_test', 'vk_test']) // the hub's own download path gets the key
    expect(readdirSync(s.dir).sort()).toEqual(['update.pending', 'vigil', 'vigil.previous'])
  })

  test('a download whose SHA-256 is not the published one is refused and nothing is swapped', async () => {
    const h = hub('2.0.0', standIn('2.0.0'), sha256('something else'))
    const s = setup(h.url)
    await s.u.check()
    await s.u.settled()
    expect(s.run('version')).toBe('1.0.0')
    expect(readdirSync(s.dir)).toEqual(['vigil']) // no staged file, no .previous, no marker
    expect(s.updated).toEqual([])
    expect(s.lines.some((l) => l.includes('checksum'))).toBe(true)
    expect(refusedVersions(s.dir).size).toBe(0) // a transfer problem: the next check tries again
  })

  test('an executable over the size cap is not kept', async () => {
    const h = hub('2.0.0', standIn('2.0.0').padEnd(4096, '#'))
    const s = setup(h.url, 1024)
    await s.u.check()
    await s.u.settled()
    expect(readdirSync(s.dir)).toEqual(['vigil'])
    expect(s.lines.some((l) => l.includes('too_large'))).toBe(true)
  })

  test('one that fails its self-check is not swapped in, and that version is not tried again', async () => {
    const h = hub('2.0.0', standIn('1.9.9')) // says another version than published
    const s = setup(h.url)
    await s.u.check()
    await s.u.settled()
    expect(s.run('version')).toBe('1.0.0')
    expect(existsSync(`${s.execPath}.previous`)).toBe(false)
    expect([...refusedVersions(s.dir)]).toEqual(['2.0.0'])
    const downloads = h.seen.length
    await s.u.check()
    await s.u.settled()
    expect(h.seen.length).toBe(downloads + 1) // the version check only, no download
    expect(s.updated).toEqual([])
  })

  test('a sample that is not JSON fails the self-check', async () => {
    const h = hub('2.0.0', standIn('2.0.0', 'Segmentation fault'))
    const s = setup(h.url)
    await s.u.check()
    await s.u.settled()
    expect(s.run('version')).toBe('1.0.0')
    expect(refusedVersions(s.dir).has('2.0.0')).toBe(true)
  })

  test('the real executable passes its own self-check, and fails it for another version', async () => {
    const bin = ensureBinary()
    await selfCheck(bin, VERSION, {})
    await expect(selfCheck(bin, '99.0.0', {})).rejects.toThrow('expected 99.0.0')
    // two starts of the 120 MB executable: seconds each on a busy machine with a cold page cache
  }, 30_000)
})

describe('a new version that dies at start is rolled back at the next start', () => {
  function installed() {
    const dir = tempDir()
    const execPath = join(dir, 'vigil')
    writeFileSync(execPath, standIn('2.0.0'), { mode: 0o755 })
    writeFileSync(`${execPath}.previous`, standIn('1.0.0'), { mode: 0o755 })
    writeMarker(dir, { version: '2.0.0', from: '1.0.0', exec_path: execPath, starts: 0, at: '2026-01-01T00:00:00.000Z' })
    return { dir, execPath, log: memoryLogger().logger }
  }

  test('first start counts itself; a second start without confirmation restores .previous and refuses the version', () => {
    const { dir, execPath, log } = installed()
    expect(checkUpdateMarker(dir, '2.0.0', log)).toBe('confirming')
    expect(readMarker(dir)?.starts).toBe(1)
    expect(checkUpdateMarker(dir, '2.0.0', log)).toBe('rolled_back')
    expect(readFileSync(execPath, 'utf8')).toBe(standIn('1.0.0'))
    expect(existsSync(`${execPath}.previous`)).toBe(false)
    expect(readMarker(dir)).toBeNull()
    expect(refusedVersions(dir).has('2.0.0')).toBe(true)
    expect(checkUpdateMarker(dir, '1.0.0', log)).toBe('none') // the old version starts normally
  })

  test('a clean stop during the confirmation is not a crash', () => {
    const { dir, execPath, log } = installed()
    expect(checkUpdateMarker(dir, '2.0.0', log)).toBe('confirming')
    uncountStart(dir)
    expect(checkUpdateMarker(dir, '2.0.0', log)).toBe('confirming')
    expect(readFileSync(execPath, 'utf8')).toBe(standIn('2.0.0'))
  })

  test('a marker for another version than the one running is stale and removed', () => {
    const { dir, log } = installed()
    expect(checkUpdateMarker(dir, '3.0.0', log)).toBe('none')
    expect(readMarker(dir)).toBeNull()
  })
})

test('--no-update and VIGIL_AGENT_UPDATE=false turn updates off', () => {
  const base = ['--hub', 'http://h', '--key', 'k']
  expect(loadAgentConfig({}, base).update).toBe(true)
  expect(loadAgentConfig({}, [...base, '--no-update']).update).toBe(false)
  expect(loadAgentConfig({ VIGIL_AGENT_UPDATE: 'false' }, base).update).toBe(false)
  expect(loadAgentConfig({ VIGIL_AGENT_UPDATE: 'TRUE' }, base).update).toBe(true)
  expect(() => loadAgentConfig({ VIGIL_AGENT_UPDATE: 'maybe' }, base)).toThrow('VIGIL_AGENT_UPDATE')
})
