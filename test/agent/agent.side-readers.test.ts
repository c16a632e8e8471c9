import { afterAll, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { NO_SMARTCTL } from '../../src/agent/readers/smart/smart.poller'
import { ensureBinary } from '../helpers/binary'
import { tempDirs } from '../helpers/temp-dirs'

const tempDir = tempDirs('vigil-agent-side-')
const procs: ReturnType<typeof Bun.spawn>[] = []
afterAll(async () => {
  for (const p of procs) p.kill('SIGTERM')
  await Promise.all(procs.map((p) => p.exited))
})

/** A hub that registers one device and keeps every batch body, waking whoever waits for the n-th. */
function recordingHub() {
  const batches: any[] = []
  let wake: (() => void) | null = null
  let want = 0
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const path = new URL(req.url).pathname
      if (req.method === 'POST' && path === '/v1/clients/me/devices') return Response.json({ device_id: 'dev_side' }, { status: 201 })
      if (req.method === 'POST' && path === '/v1/metrics/batch') {
        batches.push(await req.json())
        if (batches.length >= want) wake?.()
        return Response.json({ device_id: 'dev_side', hardware: null, network: null }, { status: 201 })
      }
      return Response.json({ error: { code: 'not_found', message: 'no' } }, { status: 404 })
    },
  })
  const arrived = (n: number) =>
    new Promise<void>((resolve) => {
      want = n
      wake = resolve
      if (batches.length >= n) resolve()
    })
  return { url: `http://127.0.0.1:${server.port}`, batches, arrived, stop: () => server.stop(true) }
}

const smartctlHere = Bun.which('smartctl') ?? ['/usr/sbin/smartctl', '/sbin/smartctl'].find((p) => existsSync(p))

test.skipIf(!!smartctlHere)(
  'vigil agent without smartctl says why once (log and one sample), then sends no disk health at all',
  async () => {
    const hub = recordingHub()
    const agent = Bun.spawn([ensureBinary(), 'agent', '--hub', hub.url, '--key', 'vk_test', '--interval', '1', '--state-dir', tempDir(), '--no-update'], {
      env: { PATH: '/nonexistent', DOCKER_HOST: 'unix:///nonexistent/docker.sock' },
      stdout: 'ignore',
      stderr: 'pipe',
    })
    procs.push(agent)
    await hub.arrived(4)
    agent.kill('SIGTERM')
    await agent.exited
    const log = await new Response(agent.stderr).text()
    hub.stop()
    const smart = hub.batches.filter((b) => b.disks_smart)
    expect(smart).toHaveLength(1)
    expect(smart[0].disks_smart).toEqual({ available: false, unavailable_reason: NO_SMARTCTL, devices: [] })
    expect(log.split('\n').filter((l) => l.includes('disk health not read'))).toHaveLength(1)
    // with no engine either: the reason once, not in every sample
    if (!existsSync('/var/run/docker.sock') && !existsSync('/run/podman/podman.sock')) {
      const containers = hub.batches.filter((b) => b.containers)
      expect(containers).toHaveLength(1)
      expect(containers[0].containers.unavailable_reason).toStartWith(
        'no Docker or Podman socket found (looked at /nonexistent/docker.sock, /var/run/docker.sock',
      )
    }
  },
  60_000,
)
