import { afterEach, describe, expect, test } from 'bun:test'
import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { ensureBinary, freePort, tempDir } from '../helpers/binary'

/**
 * The database holds password hashes and key digests: dist/vigil run under umask 000 in a
 * world-writable data dir still makes vigil.db, its -wal and -shm and its backups 0600.
 */
const running: { kill(): void; exited: Promise<number> }[] = []
afterEach(async () => {
  for (const p of running.splice(0)) {
    p.kill()
    await p.exited
  }
})

const mode = (path: string) => statSync(path).mode & 0o777

/** The executable under `umask 000`, through sh (the umask is the shell's to set). */
const underUmask0 = (args: string, env: Record<string, string>) =>
  Bun.spawn(['sh', '-c', `umask 000 && exec "$VIGIL_BIN" ${args}`], {
    env: { PATH: process.env.PATH ?? '', VIGIL_BIN: ensureBinary(), VIGIL_HOST: '127.0.0.1', VIGIL_LOG_FORMAT: 'json', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })

describe('file modes in the data dir', () => {
  test('vigil.db, -wal, -shm and a backup are 0600 whatever the umask and the directory', async () => {
    const dataDir = join(tempDir('vigil-modes-'), 'data')
    mkdirSync(dataDir)
    chmodSync(dataDir, 0o777)
    const port = freePort()
    const server = underUmask0('serve', { VIGIL_DATA_DIR: dataDir, VIGIL_PORT: String(port) })
    running.push(server)
    let up = false
    for (let i = 0; i < 200 && !up; i++) {
      up = await fetch(`http://127.0.0.1:${port}/health`).then(
        (r) => r.ok,
        () => false,
      )
      if (!up) await Bun.sleep(50)
    }
    expect(up).toBe(true)
    const db = join(dataDir, 'vigil.db')
    for (const file of [db, `${db}-wal`, `${db}-shm`]) expect({ file, mode: mode(file).toString(8) }).toEqual({ file, mode: '600' })

    const out = join(dataDir, 'copy.vigil-backup')
    const backup = underUmask0(`backup --out "${out}"`, { VIGIL_DATA_DIR: dataDir })
    expect(await backup.exited).toBe(0)
    expect(mode(out).toString(8)).toBe('600')
    expect(existsSync(`${out}-journal`)).toBe(false)
  }, 60_000)
})
