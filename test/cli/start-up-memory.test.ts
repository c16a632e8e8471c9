import { beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { ensureBinary, freePort, tempDir } from '../helpers/binary'
import { follow, jsonLines } from '../helpers/follow'

const HANDED_BACK = 'pages of the executable handed back to the kernel'

/** The first log line of this message after this moment. */
const logged = (msg: string, after: string) => (text: string) => jsonLines(text).find((l) => l.msg === msg && l.after === after)

describe("dist/vigil's memory once start-up is over", () => {
  beforeAll(() => void ensureBinary(), 60_000)

  test('hands back the pages of the executable start-up used, answers every kind of request, and hands back again after a burst', async () => {
    const cwd = tempDir()
    const port = freePort()
    const base = `http://127.0.0.1:${port}`
    const proc = Bun.spawn([ensureBinary(), 'serve'], {
      cwd,
      env: {
        PATH: process.env.PATH ?? '',
        VIGIL_PORT: String(port),
        VIGIL_HOST: '127.0.0.1',
        VIGIL_DATA_DIR: join(cwd, 'data'),
        VIGIL_LOG_FORMAT: 'json',
        VIGIL_LOG_LEVEL: 'debug',
        // the burst below is anonymous
        VIGIL_RATE_LIMIT_ANONYMOUS: '10000000',
      },
      stdout: 'pipe',
      stderr: 'inherit',
    })
    const out = follow(proc.stdout)
    try {
      const line = await out.until(logged(HANDED_BACK, 'start-up'), `"${HANDED_BACK}" after start-up`)
      // the executable's ranges were taken, and the process maps fewer of its pages (about half as many)
      expect(line.ranges).toBeGreaterThan(0)
      expect(line.file_backed_mb_after as number).toBeLessThan((line.file_backed_mb_before as number) * 0.75)
      // what a request needs is read back as it runs: each kind still answers in full
      expect((await fetch(`${base}/health`)).status).toBe(200)
      const spec = await fetch(`${base}/openapi.json`)
      expect(spec.status).toBe(200)
      expect(((await spec.json()) as { paths: object }).paths).toHaveProperty(['/v1/metrics/batch'])
      expect(await (await fetch(`${base}/docs`)).text()).toContain('<html')
      expect((await fetch(`${base}/dashboard`)).status).toBe(200)
      const login = await fetch(`${base}/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'nobody@example.com', password: 'not-the-password' }),
      })
      expect(login.status).toBe(401)
      expect((await fetch(`${base}/v1/clients/me/devices`)).status).toBe(401)
      // a burst of requests, then a quiet spell (5 s): what the burst ran is handed back too
      for (let i = 0; i < 100; i++) expect((await fetch(`${base}/health`)).status).toBe(200)
      const quiet = await out.until(logged(HANDED_BACK, 'a burst of requests'), `"${HANDED_BACK}" after a burst`)
      expect(quiet.ranges).toBeGreaterThan(0)
      expect((await fetch(`${base}/health`)).status).toBe(200)
    } finally {
      proc.kill('SIGTERM')
      await proc.exited
    }
  }, 30_000)
})
