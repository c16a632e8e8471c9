import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { startBinary, tempDir } from '../../helpers/binary'

/**
 * The live stream's caps against dist/vigil over a real socket: with VIGIL_LIVE_MAX_STREAMS=40,
 * an account holds at most a tenth (4), and the last quarter (10) is kept for accounts opening
 * their first 2, so no account, nor a few busy ones, can take the instance's streams from others.
 */
describe('live streams are shared fairly between accounts (dist/vigil)', () => {
  let base = ''
  let stop = async () => {}
  const open: Response[] = []

  beforeAll(async () => {
    const cwd = tempDir('vigil-live-fair-')
    const started = await startBinary({
      cwd,
      env: {
        VIGIL_DATA_DIR: join(cwd, 'data'),
        VIGIL_MODE: 'own',
        VIGIL_SIGNUP: 'open',
        VIGIL_LIVE_MAX_STREAMS: '40',
        VIGIL_RATE_LIMIT_FREE: '100000',
        VIGIL_RATE_LIMIT_ANONYMOUS: '100000',
        VIGIL_OWN_RATE_LIMIT: '100000',
      },
    })
    base = started.base
    stop = async () => {
      started.proc.kill('SIGTERM')
      await started.proc.exited
    }
  }, 60_000)
  afterAll(async () => {
    for (const res of open) await res.body?.cancel().catch(() => {})
    await stop()
  })

  let accounts = 0
  async function account(): Promise<Record<string, string>> {
    const body = JSON.stringify({ email: `owner${++accounts}@example.test`, password: 'correct horse battery' })
    const headers = { 'content-type': 'application/json' }
    expect((await fetch(`${base}/v1/auth/register`, { method: 'POST', headers, body })).status).toBe(201)
    const login = (await (await fetch(`${base}/v1/auth/login`, { method: 'POST', headers, body })).json()) as { access_token: string }
    return { authorization: `Bearer ${login.access_token}` }
  }

  /** opens streams until one is refused: how many it got, and the refusal */
  async function openUntilRefused(headers: Record<string, string>, most = 50) {
    for (let got = 0; got < most; got++) {
      const res = await fetch(`${base}/v1/events`, { headers })
      if (res.status !== 200) return { got, status: res.status, body: (await res.json()) as any, retryAfter: res.headers.get('retry-after') }
      open.push(res)
    }
    return { got: most, status: 200, body: null as any, retryAfter: null }
  }

  test('one account gets its share, not the instance; a new account can open its first streams while others are busy', async () => {
    // the first account alone: 4 streams, not 40
    const first = await openUntilRefused(await account())
    expect(first).toMatchObject({ got: 4, status: 429, retryAfter: '15' })
    expect(first.body.error.code).toBe('too_many_streams')

    // six more busy accounts take their share: 28 of the 30 shared streams
    for (let i = 0; i < 6; i++) expect((await openUntilRefused(await account())).got).toBe(4)
    // the eighth reaches the reserve after its first 2
    const eighth = await openUntilRefused(await account())
    expect(eighth.got).toBe(2)
    expect(eighth.body.error.message).toContain('retry later')

    // the reserve: five newcomers each still open their first 2 streams
    for (let i = 0; i < 5; i++) expect((await openUntilRefused(await account())).got).toBe(2)
    // and only now, with every stream in use, is the instance full for everyone
    expect((await openUntilRefused(await account())).got).toBe(0)
  }, 60_000)
})
