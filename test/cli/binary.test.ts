import { beforeAll, describe, expect, test } from 'bun:test'
import { statSync, existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ensureBinary, startBinary, tempDir } from '../helpers/binary'

/** Smoke tests of the compiled executable, started from a directory that is not the repo. */
describe('dist/vigil', () => {
  beforeAll(() => void ensureBinary(), 60_000) // a fresh clone builds it first

  test('serves from another directory on an empty data dir, embeds its assets, stops cleanly on SIGTERM', async () => {
    const cwd = tempDir()
    // A stray .env next to the binary must not be read.
    writeFileSync(join(cwd, '.env'), 'VIGIL_SITE_URL=https://from-dotenv.example\n')
    const { proc, base } = await startBinary({ cwd, env: { VIGIL_DATA_DIR: join(cwd, 'data') } })
    try {
      const health = await (await fetch(`${base}/health`)).json()
      expect(health).toMatchObject({ status: 'ok', database: { ok: true } })
      expect((await fetch(`${base}/`)).headers.get('content-type')).toContain('text/html')
      expect((await fetch(`${base}/docs/assets/swagger-ui-bundle.js`)).status).toBe(200)
      const missing = (await (await fetch(`${base}/v1/nope`)).json()) as { error: { doc_url: string } }
      expect(missing.error.doc_url).toStartWith('http://localhost:') // not the .env value
      // the portal is inside: its shell, and the files it names
      const shell = await (await fetch(`${base}/dashboard`)).text()
      const files = [...shell.matchAll(/(?:src|href)="(\/app\/[^"]+)"/g)].map((m) => m[1]!)
      expect(files.length).toBeGreaterThanOrEqual(2)
      for (const file of files) expect((await fetch(`${base}${file}`)).status).toBe(200)
      expect(existsSync(join(cwd, 'data/vigil.db'))).toBe(true)
      expect(statSync(join(cwd, 'data/jwt-secret')).mode & 0o777).toBe(0o600)
      // A consistent snapshot while serving.
      const backup = Bun.spawnSync([ensureBinary(), 'backup', '--out', join(cwd, 'live.db'), '--data-dir', join(cwd, 'data')], { cwd })
      expect(backup.exitCode).toBe(0)
      expect(existsSync(join(cwd, 'live.db'))).toBe(true)
    } finally {
      proc.kill('SIGTERM')
    }
    expect(await proc.exited).toBe(0)
    const out = await new Response(proc.stdout).text()
    expect(out).toContain('vigil listening')
    expect(out).toContain('stopped')
  })

  test('a provider key saved through the API still opens after a restart (the key file in the data dir)', async () => {
    const cwd = tempDir()
    const env = { VIGIL_DATA_DIR: join(cwd, 'data') }
    const json = { 'content-type': 'application/json' }
    const first = await startBinary({ cwd, env })
    let portal: Record<string, string>
    try {
      const account = { email: 'ops@example.test', password: 'correct horse battery' }
      expect(
        (await fetch(`${first.base}/v1/auth/register`, { method: 'POST', headers: json, body: JSON.stringify({ ...account, company: 'Acme' }) })).status,
      ).toBe(201)
      const login = (await (await fetch(`${first.base}/v1/auth/login`, { method: 'POST', headers: json, body: JSON.stringify(account) })).json()) as {
        access_token: string
      }
      portal = { authorization: `Bearer ${login.access_token}` }
      const saved = await fetch(`${first.base}/v1/ai/config`, {
        method: 'PATCH',
        headers: { ...json, ...portal },
        body: JSON.stringify({ provider: 'ollama', base_url: 'http://192.168.1.20:11434', api_key: 'sk-kept-across-restarts-9876' }),
      })
      expect(saved.status).toBe(200)
    } finally {
      first.proc.kill('SIGTERM')
    }
    expect(await first.proc.exited).toBe(0)
    expect(statSync(join(cwd, 'data/secret.key')).mode & 0o777).toBe(0o600)
    const second = await startBinary({ cwd, env })
    try {
      const config = (await (await fetch(`${second.base}/v1/ai/config`, { headers: portal! })).json()) as { api_key: string | null }
      expect(config.api_key).toBe('••••9876') // decrypted with the same key, then masked
    } finally {
      second.proc.kill('SIGTERM')
    }
    expect(await second.proc.exited).toBe(0)
  })

  test('serves HTTPS natively with HSTS when given a certificate', async () => {
    const cwd = tempDir()
    const gen = Bun.spawnSync(
      ['openssl', 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'key.pem', '-out', 'cert.pem', '-days', '1', '-subj', '/CN=localhost'],
      { cwd },
    )
    if (gen.exitCode !== 0) throw new Error('openssl is needed for this test')
    const { proc, port } = await startBinary({
      cwd,
      scheme: 'https',
      env: { VIGIL_DATA_DIR: join(cwd, 'data'), VIGIL_TLS_CERT: join(cwd, 'cert.pem'), VIGIL_TLS_KEY: join(cwd, 'key.pem') },
    })
    try {
      const res = await fetch(`https://127.0.0.1:${port}/health`, { tls: { rejectUnauthorized: false } } as RequestInit)
      expect(res.status).toBe(200)
      expect(res.headers.get('strict-transport-security')).toContain('max-age=')
    } finally {
      proc.kill('SIGTERM')
    }
    expect(await proc.exited).toBe(0)
  })

  test('a bad setting is one clear line on stderr and exit code 2', () => {
    const res = Bun.spawnSync([ensureBinary(), 'serve', '--port', 'eighty'], { cwd: tempDir(), env: { PATH: process.env.PATH ?? '' } })
    expect(res.exitCode).toBe(2)
    const err = res.stderr.toString().trim()
    expect(err.split('\n')).toHaveLength(1)
    expect(err).toBe('vigil: VIGIL_PORT must be a whole number, got "eighty"')
  })

  test('version, help, migrate and backup', async () => {
    const bin = ensureBinary()
    const cwd = tempDir()
    const run = (...args: string[]) => Bun.spawnSync([bin, ...args], { cwd, env: { PATH: process.env.PATH ?? '', VIGIL_DATA_DIR: join(cwd, 'd') } })
    expect(run('version').stdout.toString().trim()).toMatch(/^\d+\.\d+\.\d+/)
    for (const cmd of ['serve', 'migrate', 'backup', 'healthcheck', 'version']) {
      const help = run(cmd, '--help')
      expect(help.exitCode).toBe(0)
      expect(help.stdout.toString()).toContain(`vigil ${cmd}`)
    }
    expect(run('migrate').stdout.toString()).toContain('up to date')
    expect(run('migrate', 'status').stdout.toString()).toMatch(/^applied /m)
    const backup = run('backup', '--out', join(cwd, 'snap.db'))
    expect(backup.exitCode).toBe(0)
    expect(existsSync(join(cwd, 'snap.db'))).toBe(true)
    expect(run('backup', '--out', join(cwd, 'snap.db')).exitCode).toBe(2) // never overwrites
    expect(run('healthcheck', '--port', '1').exitCode).toBe(1)
    expect(run('frobnicate').exitCode).toBe(2)
  })
})
