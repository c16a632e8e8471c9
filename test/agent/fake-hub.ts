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
  server: ReturnType<typeof Bun.serve>
  readonly url: string
  seqs(): number[]
}

export function fakeHub(): FakeHub {
  const received: { recorded_at: string; seq: number }[] = []
  const registrations: unknown[] = []
  const hub: FakeHub = {
    received,
    registrations,
    answer: () => 201,
    bulk: false,
    bulkAnswer: () => ({ status: 201 }),
    bulks: [],
    server: Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      async fetch(req): Promise<Response> {
        const url = new URL(req.url)
        if (req.method === 'POST' && url.pathname === '/v1/clients/me/devices') {
          registrations.push(await req.json())
          return Response.json({ device_id: 'dev_fake' }, { status: 201 })
        }
        if (req.method === 'POST' && url.pathname === '/v1/metrics/batch') {
          if (req.headers.get('x-device-id') !== 'dev_fake') return Response.json({ detail: 'device_required' }, { status: 422 })
          const body = (await req.json()) as { recorded_at: string; seq: number }
          const status: number = hub.answer(body)
          if (status === 201) received.push({ recorded_at: body.recorded_at, seq: body.seq })
          return Response.json({ detail: `status ${status}` }, { status })
        }
        if (req.method === 'POST' && url.pathname === '/v1/metrics/bulk' && hub.bulk) {
          const { status, headers } = hub.bulkAnswer()
          if (status !== 201) return Response.json({ detail: `status ${status}` }, { status, headers })
          const { items } = (await req.json()) as { items: { recorded_at: string; seq: number }[] }
          hub.bulks.push(items.length)
          const results = items.map((b) => {
            const taken = hub.answer(b) === 201
            if (taken) received.push({ recorded_at: b.recorded_at, seq: b.seq })
            return { status: taken ? 'stored' : 'rejected', reason: taken ? null : 'refused' }
          })
          return Response.json({ device_id: 'dev_fake', rejected: results.filter((r) => r.status === 'rejected').length, items: results }, { status: 201 })
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
