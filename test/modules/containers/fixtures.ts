import type { ContainerIn, ContainersBlock } from '../../../src/modules/containers/containers.model'

/** A running container as a collector reports it; overrides change what a test is about. */
export function container(name: string, over: Partial<ContainerIn> = {}): ContainerIn {
  return {
    id: `${name}-id-1`,
    name,
    image: `example/${name}:1`,
    labels: {},
    state: 'running',
    health: 'none',
    exit_code: null,
    oom_killed: false,
    restart_count: 0,
    started_at: '2026-11-27T00:00:00Z',
    finished_at: null,
    cpu_percent: 12.5,
    memory_used_bytes: 50 * 1024 * 1024,
    memory_limit_bytes: 200 * 1024 * 1024,
    net_rx_bytes_per_sec: 1000,
    net_tx_bytes_per_sec: 500,
    block_read_bytes_per_sec: 0,
    block_write_bytes_per_sec: 4096,
    pids: 7,
    ...over,
  }
}

/** A block as a collector sends it; `over` may make it malformed on purpose (the bounds tests). */
export const block = (items: ContainerIn[], over: Record<string, unknown> = {}): ContainersBlock =>
  ({
    engine: { kind: 'docker', version: '27.3.1', api_version: '1.47' },
    unavailable_reason: null,
    memory_accounting: true,
    items,
    ...over,
  }) as ContainersBlock

/** One account with a collector key and one device: what each test starts from. */
export async function account(
  t: { request: (m: string, p: string, o?: { body?: unknown; headers?: Record<string, string> }) => Promise<{ status: number; body: any }> },
  email = 'ops@example.test',
) {
  const password = 'correct horse battery'
  await t.request('POST', '/v1/auth/register', { body: { email, password } })
  const login = await t.request('POST', '/v1/auth/login', { body: { email, password } })
  const portal = { authorization: `Bearer ${login.body.access_token}` }
  const key = await t.request('POST', '/v1/auth/api-keys', { body: { name: 'collector' }, headers: portal })
  const collector = { 'x-api-key': key.body.api_key as string }
  const device = await t.request('POST', '/v1/clients/me/devices', {
    body: { hostname: `host-${email}`, os: 'linux', os_version: '6.8', arch: 'x86_64', fingerprint: `fp-${email}` },
    headers: collector,
  })
  /** a fresh access token, for a test whose clock has moved past the token's 15 minutes */
  const relogin = async () => {
    const again = await t.request('POST', '/v1/auth/login', { body: { email, password } })
    return { authorization: `Bearer ${again.body.access_token}` }
  }
  return { portal, collector, deviceId: device.body.device_id as string, relogin }
}
