import { afterEach, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { findPortHolder, portHeldMessage } from '../../src/cli/port-holder'
import { ensureBinary, freePort, tempDir } from '../helpers/binary'

const held: { stop(force?: boolean): void }[] = []
afterEach(() => {
  for (const s of held.splice(0)) s.stop(true)
})

/** A /proc with one listening socket (inode 4242 on port 8080) held by pid 77. */
function fakeProc(opts: { readableFds: boolean }) {
  const proc = tempDir('vigil-proc-')
  mkdirSync(join(proc, 'net'))
  const header = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n'
  writeFileSync(
    join(proc, 'net/tcp'),
    `${header}   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0000000000000000 100 0 0 10 0\n` +
      `   1: 0100007F:1F90 0100007F:D431 01 00000000:00000000 00:00000000 00000000  1000        0 5151 1 0000000000000000 100 0 0 10 0\n`,
  )
  writeFileSync(join(proc, 'net/tcp6'), header)
  mkdirSync(join(proc, '77'))
  writeFileSync(join(proc, '77/cmdline'), 'nginx: master process\0-g\0daemon off;\0')
  if (opts.readableFds) {
    mkdirSync(join(proc, '77/fd'))
    symlinkSync('socket:[4242]', join(proc, '77/fd/6'))
  }
  return proc
}

describe('who holds a port', () => {
  test("the listening socket's inode in /proc/net/tcp, then the process with a descriptor on it", () => {
    expect(findPortHolder(8080, fakeProc({ readableFds: true }))).toEqual({ pid: 77, command: 'nginx: master process -g daemon off;' })
    expect(findPortHolder(8081, fakeProc({ readableFds: true }))).toBeNull()
  })

  test("another user's process cannot be told, and the message says so and how to find out", () => {
    const proc = fakeProc({ readableFds: false })
    expect(findPortHolder(8080, proc)).toBeNull()
    expect(portHeldMessage('0.0.0.0', 8080, findPortHolder(8080, proc))).toContain('could not be told')
  })

  test('vigil serve on a port another process holds names it, exits 2 and creates nothing', async () => {
    const port = freePort()
    held.push(Bun.serve({ hostname: '127.0.0.1', port, fetch: () => new Response('someone else') }))
    const cwd = tempDir('vigil-port-')
    const dataDir = join(cwd, 'data')
    const run = Bun.spawn([ensureBinary(), 'serve'], {
      cwd,
      env: { PATH: process.env.PATH ?? '', VIGIL_PORT: String(port), VIGIL_HOST: '127.0.0.1', VIGIL_DATA_DIR: dataDir },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    expect(await run.exited).toBe(2)
    const stderr = await new Response(run.stderr).text()
    expect(stderr).toContain(`port ${port} on 127.0.0.1 is already in use by pid ${process.pid} (`)
    expect(stderr).toContain('--port or VIGIL_PORT')
    expect(existsSync(dataDir)).toBe(false)
  }, 60_000)
})

describe('vigil healthcheck', () => {
  test('when nothing answers it says which address it tried and how to point it at the service', async () => {
    const port = freePort()
    const run = Bun.spawnSync([ensureBinary(), 'healthcheck'], { env: { PATH: process.env.PATH ?? '', VIGIL_PORT: String(port) }, stderr: 'pipe' })
    expect(run.exitCode).toBe(1)
    const stderr = run.stderr.toString()
    expect(stderr).toContain(`http://127.0.0.1:${port}/health`)
    expect(stderr).toContain('VIGIL_PORT')
  }, 60_000)
})
