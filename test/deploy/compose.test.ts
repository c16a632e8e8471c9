import { describe, expect, test } from 'bun:test'
import { copyFileSync, cpSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from '../helpers/binary'

/**
 * deploy/compose.yaml: nginx with the shipped configuration in front of the hubs, the hubs on one
 * PostgreSQL database with their shared secrets from an env file, Redis for their shared rate
 * limit, every service with a healthcheck. `docker compose config` validates it where Docker
 * Compose is installed.
 */
const FILE = join(ROOT, 'deploy/compose.yaml')
interface Service {
  image?: string
  build?: string
  environment?: Record<string, string>
  env_file?: string[]
  volumes?: string[]
  healthcheck?: { test: string[] }
  depends_on?: Record<string, { condition: string }>
  networks?: Record<string, { ipv4_address?: string }> | string[]
}
const compose = Bun.YAML.parse(readFileSync(FILE, 'utf8')) as { services: Record<string, Service> }
const services = compose.services
const upstreams = [...readFileSync(join(ROOT, 'deploy/nginx/vigil.conf'), 'utf8').matchAll(/^ {4}server (\S+):(\d+) /gm)].map((m) => `${m[1]}:${m[2]}`)
const hubs = Object.keys(services).filter((name) => services[name]!.image === 'vigil:local')

/** an env file's assignments, comments and blank lines left out */
function envFile(path: string): Record<string, string> {
  const lines = readFileSync(join(ROOT, path), 'utf8').split('\n')
  return Object.fromEntries(lines.filter((l) => /^[A-Z_]+=/.test(l)).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]))
}

const composeAvailable = Bun.spawnSync(['docker', 'compose', 'version'], { stdout: 'ignore', stderr: 'ignore' }).exitCode === 0

describe('deploy/compose.yaml', () => {
  test('nginx runs the shipped configuration, whose upstream is the hubs of the file on their port', () => {
    expect(services.nginx!.volumes).toContain('./nginx/vigil.conf:/etc/nginx/conf.d/default.conf:ro')
    expect(hubs.length).toBeGreaterThanOrEqual(2)
    expect(upstreams.sort()).toEqual(hubs.map((h) => `${h}:8080`).sort())
    for (const h of hubs) expect(services.nginx!.depends_on?.[h]?.condition).toBe('service_healthy')
  })

  test("every service has a healthcheck, the hubs' and nginx's on /health", () => {
    for (const [name, s] of Object.entries(services)) expect([name, (s.healthcheck?.test.length ?? 0) > 0]).toEqual([name, true])
    for (const h of hubs) expect(services[h]!.healthcheck!.test).toEqual(['CMD', '/usr/local/bin/vigil', 'healthcheck'])
    expect(services.nginx!.healthcheck!.test.join(' ')).toContain('http://127.0.0.1/health')
    expect(services.redis!.healthcheck!.test).toEqual(['CMD', 'redis-cli', 'ping'])
    expect(services.postgres!.healthcheck!.test).toEqual(['CMD', 'pg_isready', '-U', 'vigil', '-d', 'vigil'])
  })

  test('the hubs share Redis for the rate limit, trust nginx alone to name the client, and each has its own volume', () => {
    const nginxAddress = (services.nginx!.networks as Record<string, { ipv4_address?: string }>).vigil!.ipv4_address
    const volumes = new Set<string>()
    for (const h of hubs) {
      const env = services[h]!.environment!
      expect(env.VIGIL_REDIS_URL).toBe('redis://redis:6379')
      expect(env.VIGIL_TRUST_PROXY).toBe('true')
      expect(env.VIGIL_TRUSTED_PROXIES).toBe(nginxAddress!)
      for (const v of services[h]!.volumes!) volumes.add(v.split(':')[0]!)
    }
    expect(volumes.size).toBe(hubs.length)
  })

  test('the hubs serve from the postgres service, with the database URL and shared secrets from vigil.env, none written in the file', () => {
    const postgres = services.postgres!
    expect(postgres.image).toBe('postgres:15-bookworm')
    expect(postgres.environment).toEqual({ POSTGRES_USER: 'vigil', POSTGRES_DB: 'vigil' })
    expect(postgres.env_file).toEqual(['postgres.env'])
    expect(postgres.volumes).toEqual(['postgres-data:/var/lib/postgresql/data'])
    for (const h of hubs) {
      expect(services[h]!.env_file).toEqual(['vigil.env'])
      expect(services[h]!.depends_on?.postgres?.condition).toBe('service_healthy')
      const env = services[h]!.environment!
      for (const inline of ['VIGIL_DATABASE_URL', 'VIGIL_JWT_SECRET', 'VIGIL_SECRET_KEY']) expect([inline, env[inline]]).toEqual([inline, undefined])
    }
    // the examples name what each file must hold, and the URL names the postgres service's user, port and database
    const example = envFile('deploy/vigil.env.example')
    expect(Object.keys(example).sort()).toEqual(['VIGIL_DATABASE_URL', 'VIGIL_JWT_SECRET', 'VIGIL_SECRET_KEY'])
    const url = new URL(example.VIGIL_DATABASE_URL!)
    expect([url.protocol, url.username, url.hostname, url.port, url.pathname]).toEqual(['postgres:', 'vigil', 'postgres', '5432', '/vigil'])
    expect(Object.keys(envFile('deploy/postgres.env.example'))).toEqual(['POSTGRES_PASSWORD'])
  })

  test.skipIf(!composeAvailable)(`docker compose accepts the file${composeAvailable ? '' : ' (skipped: docker compose is not installed here)'}`, () => {
    // beside a copy of the file, the env files an operator makes from the examples
    const dir = mkdtempSync(join(tmpdir(), 'vigil-compose-'))
    cpSync(join(ROOT, 'deploy'), dir, { recursive: true })
    for (const name of ['vigil.env', 'postgres.env']) copyFileSync(join(dir, `${name}.example`), join(dir, name))
    const run = Bun.spawnSync(['docker', 'compose', '-f', join(dir, 'compose.yaml'), 'config', '--quiet'], { stdout: 'pipe', stderr: 'pipe' })
    expect(run.stderr.toString()).toBe('')
    expect(run.exitCode).toBe(0)
  })
})
