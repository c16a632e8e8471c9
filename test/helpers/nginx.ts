/**
 * Debian's nginx running the shipped deploy/nginx/vigil.conf in front of hubs on this machine, as
 * this user, in a directory of its own. Skips (saying why) without /usr/sbin/nginx.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { freePort, ROOT } from './binary'

export const NGINX = '/usr/sbin/nginx'
export const nginxSkipReason = existsSync(NGINX) ? '' : "(skipped: /usr/sbin/nginx is not installed; .ci/run installs Debian's nginx)"

/** The shipped configuration with its upstream, listen address and paths set for these hubs. */
export function renderNginxConfig(opts: { hubs: number[]; port: number; dir: string }): string {
  const shipped = readFileSync(join(ROOT, 'deploy/nginx/vigil.conf'), 'utf8')
  const servers = opts.hubs.map((p) => `    server 127.0.0.1:${p} max_fails=3 fail_timeout=10s;`).join('\n')
  const out = shipped
    .replace(/^ {4}server hub1:8080 .*\n {4}server hub2:8080 .*$/m, servers)
    .replace(/^ {4}listen 80;$/m, `    listen 127.0.0.1:${opts.port};`)
    .replace('/var/log/nginx/vigil.access.log', join(opts.dir, 'access.log'))
    .replace('/var/cache/nginx-vigil', join(opts.dir, 'cache'))
  for (const p of opts.hubs) if (!out.includes(`127.0.0.1:${p}`)) throw new Error('the upstream of deploy/nginx/vigil.conf was not found')
  if (!out.includes(`listen 127.0.0.1:${opts.port};`)) throw new Error('the listen line of deploy/nginx/vigil.conf was not found')
  return out
}

/**
 * nginx as this user on `conf` (a rendering of the shipped file), with its own prefix, pid, logs and
 * temp paths in `home`; resolves once `probe` answers /health through it. `http` adds lines to the
 * http block; `headers` go with each probe (an address of the test's own for a shared rate limit).
 */
export async function runNginx(
  home: string,
  conf: string,
  o: { probe: string; http?: string; headers?: Record<string, string>; started?: Bun.Subprocess[] },
): Promise<Bun.Subprocess> {
  mkdirSync(home, { recursive: true })
  writeFileSync(join(home, 'vigil.conf'), conf)
  const user = process.getuid?.() === 0 ? 'user root;\n' : ''
  writeFileSync(
    join(home, 'nginx.conf'),
    `${user}daemon off;
worker_processes 1;
pid ${home}/nginx.pid;
error_log ${home}/error.log notice;
events { worker_connections 256; }
http {
    client_body_temp_path ${home}/client_body;
    proxy_temp_path ${home}/proxy;
    fastcgi_temp_path ${home}/fastcgi;
    uwsgi_temp_path ${home}/uwsgi;
    scgi_temp_path ${home}/scgi;
${o.http ?? ''}    include ${home}/vigil.conf;
}
`,
  )
  const proc = Bun.spawn([NGINX, '-p', home, '-c', join(home, 'nginx.conf'), '-e', join(home, 'error.log')], { stdout: 'ignore', stderr: 'pipe' })
  o.started?.push(proc)
  for (let i = 0; i < 200 && proc.exitCode === null; i++) {
    try {
      await fetch(`${o.probe}/health`, { headers: o.headers, tls: { rejectUnauthorized: false } } as RequestInit)
      return proc
    } catch {
      await Bun.sleep(50)
    }
  }
  proc.kill()
  throw new Error(
    `nginx did not start: ${await new Response(proc.stderr as ReadableStream<Uint8Array>).text()} ${readFileSync(join(home, 'error.log'), 'utf8')}`,
  )
}

/** nginx on the shipped file for `hubs` (their ports), on a free port; resolves once it answers */
export async function startNginx(home: string, hubs: number[]): Promise<{ base: string; proc: Bun.Subprocess }> {
  mkdirSync(home, { recursive: true })
  const port = freePort()
  const base = `http://127.0.0.1:${port}`
  const proc = await runNginx(home, renderNginxConfig({ hubs, port, dir: home }), { probe: base })
  return { base, proc }
}
