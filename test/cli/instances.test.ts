import { beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { ensureBinary, freePort, startBinary, tempDir } from '../helpers/binary'

/** A second `vigil serve` must not share a port or a data dir with a running one. */
describe('dist/vigil: one service per port and per data dir', () => {
  beforeAll(() => void ensureBinary(), 60_000)
  const env = (port: number, dataDir: string) => ({ PATH: process.env.PATH ?? '', VIGIL_PORT: String(port), VIGIL_HOST: '127.0.0.1', VIGIL_DATA_DIR: dataDir })

  test('a second instance on the same port (another data dir) exits 2 with the reason', async () => {
    const cwd = tempDir()
    const first = await startBinary({ cwd, env: { VIGIL_DATA_DIR: join(cwd, 'a') } })
    try {
      const second = Bun.spawnSync([ensureBinary(), 'serve'], { cwd, env: env(first.port, join(cwd, 'b')) })
      expect(second.exitCode).toBe(2)
      expect(second.stderr.toString().trim()).toStartWith(`vigil: port ${first.port} on 127.0.0.1 is already in use`)
    } finally {
      first.proc.kill('SIGTERM')
    }
    expect(await first.proc.exited).toBe(0)
  })

  test('a second instance on the same data dir exits 2 naming the holder; after kill -9 of the holder a new one starts', async () => {
    const cwd = tempDir()
    const data = join(cwd, 'data')
    const first = await startBinary({ cwd, env: { VIGIL_DATA_DIR: data } })
    const second = Bun.spawnSync([ensureBinary(), 'serve'], { cwd, env: env(freePort(), data) })
    expect(second.exitCode).toBe(2)
    expect(second.stderr.toString()).toContain(`is in use by a running vigil (pid ${first.proc.pid}, vigil `)
    // commands beside the live service: migrate refuses, status and admin work
    const run = (...args: string[]) => Bun.spawnSync([ensureBinary(), ...args], { cwd, env: env(first.port, data) })
    const migrate = run('migrate')
    expect(migrate.exitCode).toBe(2)
    expect(migrate.stderr.toString()).toContain('stop the service first')
    expect(run('migrate', 'status').exitCode).toBe(0)
    expect(run('admin', 'list').stdout.toString()).toContain('no operators yet')

    first.proc.kill('SIGKILL')
    await first.proc.exited
    const third = await startBinary({ cwd, env: { VIGIL_DATA_DIR: data } })
    third.proc.kill('SIGTERM')
    expect(await third.proc.exited).toBe(0)
  })
})
