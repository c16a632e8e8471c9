import type { Sampler } from '../../src/agent/agent.sample'
import type { Clock } from '../../src/lib/clock'

/**
 * A stand-in hub on 127.0.0.1: registers one device and records the samples it takes, in
 * arrival order. `answer` decides the status of each batch request (201 by default).
 */
export interface FakeHub {
  received: { recorded_at: string; seq: number }[]
  registrations: unknown[]
  answer: (body: { seq: number }) => number
  /** whether POST /v1/metrics/bulk exists (an older hub has no such route: 404) */
  bulk: boolean
  /** the status of a whole bulk request; its items are then each answered by `answer` */
  bulkAnswer: () => { status: number; headers?: Record<string, string> }
  /** items per bulk request taken, in order */
  bulks: number[]
  /** the device the hub knows this machine as; deleteDevice makes the next registration a new one */
  deviceId: string
  deleteDevice(): void
  /** when set, every request is answered 401 unauthorized, as for a revoked key */
  keyRevoked: boolean
  /** when set, batch requests wait for it before answering (a hub under load); `arrived` counts them */
  hold: Promise<void> | null
  arrived: number
  /** batch requests answered, whatever their status */
  batchRequests: number
  /** every request, of any kind */
  requests: number
  /** resolves when the next batch request arrives */
  arrival(): Promise<void>
  server: ReturnType<typeof Bun.serve>
  readonly url: string
  seqs(): number[]
}

export function fakeHub(): FakeHub {
  const received: { recorded_at: string; seq: number }[] = []
  const registrations: unknown[] = []
  let deleted = 0
  const arrivals: (() => void)[] = []
  const hub: FakeHub = {
    received,
    registrations,
    answer: () => 201,
    bulk: false,
    bulkAnswer: () => ({ status: 201 }),
    bulks: [],
    deviceId: 'dev_fake',
    deleteDevice() {
      deleted++
      hub.deviceId = `dev_fake${deleted + 1}`
    },
    keyRevoked: false,
    hold: null,
    arrived: 0,
    batchRequests: 0,
    requests: 0,
    arrival: () => new Promise<void>((resolve) => arrivals.push(resolve)),
    server: Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      async fetch(req): Promise<Response> {
        const url = new URL(req.url)
        hub.requests++
        if (hub.keyRevoked) return Response.json({ error: { code: 'unauthorized', message: 'Invalid or revoked API key' } }, { status: 401 })
        if (req.method === 'POST' && url.pathname === '/v1/clients/me/devices') {
          registrations.push(await req.json())
          return Response.json({ device_id: hub.deviceId }, { status: 201 })
        }
        if (req.method === 'POST' && url.pathname === '/v1/metrics/batch') {
          hub.arrived++
          for (const resolve of arrivals.splice(0)) resolve()
          if (hub.hold) await hub.hold
          hub.batchRequests++
          const named = req.headers.get('x-device-id')
          if (!named) return Response.json({ detail: 'device_required' }, { status: 422 })
          if (named !== hub.deviceId) return Response.json({ error: { code: 'not_found', message: 'Device not found' } }, { status: 404 })
          const body = (await req.json()) as { recorded_at: string; seq: number }
          const status: number = hub.answer(body)
          if (status === 201) received.push({ recorded_at: body.recorded_at, seq: body.seq })
          if (status === 403) return Response.json({ error: { code: 'insufficient_scope', message: 'This API key lacks the scope metrics:write' } }, { status })
          return Response.json({ detail: `status ${status}` }, { status })
        }
        if (req.method === 'POST' && url.pathname === '/v1/metrics/bulk' && hub.bulk) {
          if (req.headers.get('x-device-id') !== hub.deviceId)
            return Response.json({ error: { code: 'not_found', message: 'Device not found' } }, { status: 404 })
          const { status, headers } = hub.bulkAnswer()
          if (status !== 201) return Response.json({ detail: `status ${status}` }, { status, headers })
          const { items } = (await req.json()) as { items: { recorded_at: string; seq: number }[] }
          hub.bulks.push(items.length)
          const results = items.map((b) => {
            const taken = hub.answer(b) === 201
            if (taken) received.push({ recorded_at: b.recorded_at, seq: b.seq })
            return { status: taken ? 'stored' : 'rejected', reason: taken ? null : 'refused' }
          })
          return Response.json({ device_id: hub.deviceId, rejected: results.filter((r) => r.status === 'rejected').length, items: results }, { status: 201 })
        }
        return new Response('not found', { status: 404 })
      },
    }),
    get url() {
      return `http://127.0.0.1:${hub.server.port}`
    },
    seqs: () => received.map((r) => r.seq),
  }
  return hub
}

/** Samples numbered 1, 2, 3... stamped with the test's clock: which one arrived is then plain. */
export function countingSampler(clock: Clock): Sampler & { count: () => number } {
  let seq = 0
  return {
    prime() {},
    async sample() {
      seq++
      return { seq, recorded_at: new Date(clock.now()).toISOString(), hardware: { cpu_percent: seq }, network: {} } as never
    },
    count: () => seq,
  }
}
