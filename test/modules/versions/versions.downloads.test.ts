import { afterAll, expect, test } from 'bun:test'
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { download } from '../../../src/agent/agent.update-install'
import { negotiate } from '../../../src/modules/versions/versions.compressed'
import { systemClock } from '../../../src/lib/clock'
import { testApp } from '../../helpers/app'
import { tempDir } from '../../helpers/binary'

/** A hub serving a dropped "executable" (compressible, as a real one is) over a real socket. */
const dataDir = tempDir('vigil-downloads-')
mkdirSync(join(dataDir, 'agents'))
const content = Buffer.from(Array.from({ length: 20_000 }, (_, i) => `line ${i % 97} of a collector build\n`).join(''))
writeFileSync(join(dataDir, 'agents', 'vigil-linux-arm64'), content)
const sha = new Bun.CryptoHasher('sha256').update(content).digest('hex')
const t = testApp({ clock: systemClock, config: { dataDir } })
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req) => t.handle(req) })
const hub = `http://127.0.0.1:${server.port}`
afterAll(() => server.stop(true))

const raw = (path: string, acceptEncoding: string | null) =>
  fetch(`${hub}${path}`, { headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {}, decompress: false } as RequestInit)

test('Accept-Encoding picks zstd, then gzip; q=0 refuses one; none or identity is the file as it is', () => {
  expect(negotiate('gzip, deflate, br, zstd')).toBe('zstd')
  expect(negotiate('gzip')).toBe('gzip')
  expect(negotiate('zstd;q=0, gzip;q=0.5')).toBe('gzip')
  expect(negotiate('*')).toBe('zstd')
  expect(negotiate('identity')).toBeNull()
  expect(negotiate('br')).toBeNull()
  expect(negotiate(null)).toBeNull()
})

test('the executable is served zstd- or gzip-encoded as asked, compressed once and kept, with the checksum of the executable itself', async () => {
  const zstd = await raw('/download/vigil-linux-arm64', 'zstd, gzip')
  expect(zstd.headers.get('content-encoding')).toBe('zstd')
  expect(zstd.headers.get('vary')).toBe('accept-encoding')
  const zbody = new Uint8Array(await zstd.arrayBuffer())
  expect(zbody.length).toBeLessThan(content.length / 10)
  expect(Buffer.from(Bun.zstdDecompressSync(zbody)).equals(content)).toBe(true)

  const gzip = await raw('/download/vigil-linux-arm64', 'gzip')
  expect(gzip.headers.get('content-encoding')).toBe('gzip')
  expect(Buffer.from(Bun.gunzipSync(new Uint8Array(await gzip.arrayBuffer()))).equals(content)).toBe(true)

  const plain = await raw('/download/vigil-linux-arm64', null)
  expect(plain.headers.get('content-encoding')).toBeNull()
  expect(Buffer.from(await plain.arrayBuffer()).equals(content)).toBe(true)

  // the .gz file for install.sh: gzip data without Content-Encoding, whatever the request accepts
  const file = await raw('/download/vigil-linux-arm64.gz', null)
  expect(file.headers.get('content-type')).toBe('application/gzip')
  expect(file.headers.get('content-encoding')).toBeNull()
  expect(Buffer.from(Bun.gunzipSync(new Uint8Array(await file.arrayBuffer()))).equals(content)).toBe(true)

  expect(await (await raw('/download/vigil-linux-arm64.sha256', 'zstd')).text()).toBe(`${sha}  vigil-linux-arm64\n`)

  // asked again: the same copies, not made again
  await (await raw('/download/vigil-linux-arm64', 'zstd')).arrayBuffer()
  await (await raw('/download/vigil-linux-arm64.gz', null)).arrayBuffer()
  expect(readdirSync(join(dataDir, 'cache', 'downloads')).sort()).toEqual([
    expect.stringMatching(/^vigil-linux-arm64\.\d+-\d+\.gz$/),
    expect.stringMatching(/^vigil-linux-arm64\.\d+-\d+\.zst$/),
  ])
  expect(t.logs.filter((l) => l.includes('download compressed')).length).toBe(2)
})

test("the collector's updater downloads the compressed executable, unpacks it as it streams and checks the executable's checksum", async () => {
  const dir = tempDir('vigil-update-')
  let encoding = null as string | null
  const staged = await download(
    { version: '9.9.9', url: '/download/vigil-linux-arm64', sha256: sha },
    {
      execPath: join(dir, 'vigil'),
      hub,
      key: 'vk_test',
      fetch: async (u, i) => {
        const res = await fetch(u, i)
        encoding = res.headers.get('content-encoding')
        return res
      },
    },
  )
  expect(encoding).toBe('zstd')
  expect(Buffer.from(await Bun.file(staged).bytes()).equals(content)).toBe(true)
})
