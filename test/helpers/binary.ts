import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const ROOT = join(import.meta.dir, '../..')
export const BINARY = join(ROOT, 'dist/vigil')

/**
 * Builds dist/vigil once if it is not there (CI builds it before the tests). Without the
 * profile run: the same program in ~1 s instead of ~13 s, its bytecode merely laid out in
 * source order (scripts/build.ts), so a first `bun run test` on a fresh clone stays quick.
 */
export function ensureBinary(): string {
  if (!existsSync(BINARY)) {
    const build = Bun.spawnSync([process.execPath, 'run', 'build', '--no-profile'], { cwd: ROOT, stdout: 'ignore', stderr: 'pipe' })
    if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`)
  }
  return BINARY
}

export const tempDir = (prefix = 'vigil-') => mkdtempSync(join(tmpdir(), prefix))

/** Finds a free loopback port by letting the OS pick one. */
export function freePort(): number {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = server.port!
  server.stop(true)
  return port
}

/** Starts `vigil serve` from `cwd` and resolves once /health answers (bounded wait). */
export async function startBinary(opts: { cwd: string; env?: Record<string, string>; args?: string[]; scheme?: 'http' | 'https' }) {
  const port = freePort()
  const proc = Bun.spawn([ensureBinary(), 'serve', ...(opts.args ?? [])], {
    cwd: opts.cwd,
    env: { PATH: process.env.PATH ?? '', VIGIL_PORT: String(port), VIGIL_HOST: '127.0.0.1', VIGIL_LOG_FORMAT: 'json', ...opts.env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const base = `${opts.scheme ?? 'http'}://127.0.0.1:${port}`
  for (let i = 0; i < 100; i++) {
    try {
      const res = await fetch(`${base}/health`, { tls: { rejectUnauthorized: false } } as RequestInit)
      if (res.ok) return { proc, port, base }
    } catch {
      // not listening yet
    }
    if (proc.exitCode !== null) break
    await Bun.sleep(50)
  }
  proc.kill()
  throw new Error(`vigil did not start: ${await new Response(proc.stderr).text()}`)
}
