import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from '../helpers/binary'

/**
 * deploy/compose.yaml: nginx with the shipped configuration in front of the hubs, Redis for their
 * shared rate limit, every service with a healthcheck. `docker compose config` validates it
 * where Docker Compose is installed.
 */
const FILE = join(ROOT, 'deploy/compose.yaml')
interface Service {
  image?: string
  build?: string
  environment?: Record<string, string>
  volumes?: string[]
  healthcheck?: { test: string[] }
  depends_on?: Record<string, { condition: string }>
  networks?: Record<string, { ipv4_address?: string }> | string[]
}
const compose = Bun.YAML.parse(readFileSync(FILE, 'utf8')) as { services: Record<string, Service> }
const services = compose.services
const upstreams = [...readFileSync(join(ROOT, 'deploy/nginx/vigil.conf'), 'utf8').matchAll(/^ {4}server (\S+):(\d+) /gm)].map((m) => `${m[1]}:${m[2]}`)
const hubs = Object.keys(services).filter((name) => services[name]!.image === 'vigil:local')

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
  })

  test('the hubs share Redis for the rate limit, trust nginx alone to name the client, and each has its own volume', () => {
    const nginxAddress = (services.nginx!.networks as Record<string, { ipv4_address?: string }>).vigil!.ipv4_address
    const volumes = new Set<string>()
    for (const h of hubs) {
      const env = services[h]!.environment!
      expect(env.VIGIL_REDIS_URL).toBe('redis://redis:6379')
      expect(env.VIGIL_TRUST_PROXY).toBe('true')
      expect(env.VIGIL_TRUSTED_PROXIES).toBe(nginxAddress!)
      // serve does not run on PostgreSQL yet: the file must not pretend it does
      expect(env.VIGIL_DATABASE_URL).toBeUndefined()
      for (const v of services[h]!.volumes!) volumes.add(v.split(':')[0]!)
    }
    expect(volumes.size).toBe(hubs.length)
  })

  test.skipIf(!composeAvailable)(`docker compose accepts the file${composeAvailable ? '' : ' (skipped: docker compose is not installed here)'}`, () => {
    const run = Bun.spawnSync(['docker', 'compose', '-f', FILE, 'config', '--quiet'], { stdout: 'pipe', stderr: 'pipe' })
    expect(run.stderr.toString()).toBe('')
    expect(run.exitCode).toBe(0)
  })
})
