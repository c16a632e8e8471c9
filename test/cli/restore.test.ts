import { beforeAll, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { ensureBinary, startBinary, tempDir } from '../helpers/binary'

const json = { 'content-type': 'application/json' }

/** The executable, end to end: a backup made while serving, a lost data dir, a restore, a start. */
describe('vigil restore', () => {
  beforeAll(() => void ensureBinary(), 60_000)

  test('brings an instance back with everyone still signed in and stored provider keys readable', async () => {
    const cwd = tempDir()
    const data = join(cwd, 'data')
    const env = { VIGIL_DATA_DIR: data }
    const first = await startBinary({ cwd, env })
    let tokens: { access_token: string; refresh_token: string }
    try {
      const account = { email: 'ops@example.test', password: 'correct horse battery' }
      expect(
        (await fetch(`${first.base}/v1/auth/register`, { method: 'POST', headers: json, body: JSON.stringify({ ...account, company: 'Acme' }) })).status,
      ).toBe(201)
      tokens = (await (await fetch(`${first.base}/v1/auth/login`, { method: 'POST', headers: json, body: JSON.stringify(account) })).json()) as typeof tokens
      const saved = await fetch(`${first.base}/v1/ai/config`, {
        method: 'PATCH',
        headers: { ...json, authorization: `Bearer ${tokens.access_token}` },
        body: JSON.stringify({ provider: 'ollama', base_url: 'http://192.168.1.20:11434', api_key: 'sk-restored-key-4321' }),
      })
      expect(saved.status).toBe(200)
      const backup = Bun.spawnSync([ensureBinary(), 'backup', '--out', join(cwd, 'vigil-backup.db'), '--data-dir', data], { cwd })
      expect(backup.stdout.toString()).toContain('database and jwt-secret, secret.key')
      expect(backup.exitCode).toBe(0)
      // while it serves, restore refuses
      const refused = Bun.spawnSync([ensureBinary(), 'restore', join(cwd, 'vigil-backup.db'), '--data-dir', data], { cwd })
      expect(refused.exitCode).toBe(2)
      expect(refused.stderr.toString()).toContain('stop the service first')
    } finally {
      first.proc.kill('SIGTERM')
    }
    expect(await first.proc.exited).toBe(0)

    rmSync(data, { recursive: true, force: true }) // the disk is lost
    const restore = Bun.spawnSync([ensureBinary(), 'restore', join(cwd, 'vigil-backup.db'), '--data-dir', data], { cwd })
    expect(restore.stderr.toString()).toBe('')
    expect(restore.exitCode).toBe(0)
    expect(restore.stdout.toString()).toContain('secrets:  jwt-secret, secret.key')

    const second = await startBinary({ cwd, env })
    try {
      const portal = { authorization: `Bearer ${tokens!.access_token}` }
      const config = await fetch(`${second.base}/v1/ai/config`, { headers: portal })
      expect(config.status).toBe(200) // the access token from before the backup is still valid
      expect(((await config.json()) as { api_key: string | null }).api_key).toBe('••••4321') // and the key decrypts
      const refreshed = await fetch(`${second.base}/v1/auth/refresh`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ refresh_token: tokens!.refresh_token }),
      })
      expect(refreshed.status).toBe(200)
    } finally {
      second.proc.kill('SIGTERM')
    }
    expect(await second.proc.exited).toBe(0)
  }, 60_000)
})
