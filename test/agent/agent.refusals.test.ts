import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { REFUSED_RECHECK_MS } from '../../src/agent/agent.delivery'
import { INTERVAL, setup } from './loop-harness'

const warnings = (lines: string[]) => lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.level === 'warn')

describe('a device deleted on the hub', () => {
  test('the collector registers again (a new device), says why at warn, and the sample is stored under the new id', async () => {
    const { hub, tick, agent, lines, stateDir } = setup()
    await tick()
    expect(agent.deviceId()).toBe('dev_fake')
    hub.deleteDevice()
    await tick()
    expect(hub.registrations.length).toBe(2)
    expect(agent.deviceId()).toBe('dev_fake2')
    expect(hub.seqs()).toEqual([1, 2])
    expect(agent.queued().count).toBe(0)
    const why = warnings(lines).find((l) => String(l.msg).includes('was deleted'))
    expect(why).toMatchObject({ status: 404, code: 'not_found', message: 'Device not found', device_id: 'dev_fake' })
    expect(JSON.parse(readFileSync(join(stateDir, 'device.json'), 'utf8')).device_id).toBe('dev_fake2')
    await tick()
    expect(hub.seqs()).toEqual([1, 2, 3])
    expect(hub.registrations.length).toBe(2)
  })

  test('queued samples replay to the new device once it is registered', async () => {
    const { hub, tick, agent } = setup()
    hub.bulk = true
    await tick()
    hub.answer = () => 503
    await tick()
    await tick()
    expect(agent.queued().count).toBe(2)
    hub.answer = () => 201
    hub.deleteDevice()
    await tick()
    expect(hub.seqs()).toEqual([1, 4, 2, 3])
    expect(agent.deviceId()).toBe('dev_fake2')
  })
})

describe('a key the hub refuses', () => {
  test('revoked (401): warns once with what the hub said, sends and queues nothing, stays alive, asks again hourly, resumes when restored', async () => {
    const { hub, tick, agent, lines, m, sampler, clock } = setup()
    await tick()
    hub.keyRevoked = true
    await tick()
    const refused = warnings(lines).filter((l) => String(l.msg).includes('API key'))
    expect(refused.length).toBe(1)
    expect(refused[0]).toMatchObject({ status: 401, code: 'unauthorized', message: 'Invalid or revoked API key' })
    expect(String(refused[0]!.msg)).toContain('asking the hub again every hour')
    expect(lines.some((l) => l.includes('queueing until'))).toBe(false)
    expect(agent.queued().count).toBe(0)

    const requests = hub.requests
    const taken = sampler.count()
    for (let i = 0; i < REFUSED_RECHECK_MS / INTERVAL - 1; i++) await tick()
    expect(hub.requests).toBe(requests) // no request for an hour
    expect(sampler.count()).toBe(taken) // nor any sample taken
    expect(agent.queued().count).toBe(0)
    expect(m.pending()).toBe(1) // alive: the next tick is scheduled

    await tick() // an hour after the refusal: one try, refused again
    expect(hub.requests).toBe(requests + 1)
    expect(lines.at(-1)).toContain('still refuses')
    expect(warnings(lines).filter((l) => String(l.msg).includes('API key')).length).toBe(1)

    hub.keyRevoked = false
    clock.advance(REFUSED_RECHECK_MS)
    await tick()
    expect(hub.seqs()).toEqual([1, sampler.count()])
    expect(lines.some((l) => l.includes('takes this collector') && l.includes('samples again'))).toBe(true)
    await tick()
    expect(hub.seqs().length).toBe(3)
  })

  test('revoked before the first registration: the same, nothing queued', async () => {
    const { hub, tick, agent, lines } = setup()
    hub.keyRevoked = true
    await tick()
    await tick()
    expect(agent.queued().count).toBe(0)
    expect(hub.requests).toBe(1)
    expect(warnings(lines).find((l) => String(l.msg).includes('API key'))).toMatchObject({ status: 401, code: 'unauthorized' })
  })

  test('lacking a scope (403): says so with the code and message, queues nothing', async () => {
    const { hub, tick, agent, lines } = setup()
    hub.answer = () => 403
    await tick()
    await tick()
    expect(agent.queued().count).toBe(0)
    expect(hub.batchRequests).toBe(1)
    expect(warnings(lines).find((l) => String(l.msg).includes('API key'))).toMatchObject({
      status: 403,
      code: 'insufficient_scope',
      message: 'This API key lacks the scope metrics:write',
    })
  })

  test('a hub that is down is an outage, not a refusal: queued, and the warning names the status', async () => {
    const { hub, tick, agent, lines } = setup()
    hub.answer = () => 503
    await tick()
    expect(agent.queued().count).toBe(1)
    expect(warnings(lines).find((l) => String(l.msg).includes('queueing until'))).toMatchObject({ status: 503 })
    expect(lines.some((l) => l.includes('API key'))).toBe(false)
  })
})

describe('sampling on the clock', () => {
  test('a hub that does not answer does not delay sampling: the samples taken meanwhile follow the answer, in bulk', async () => {
    const { hub, agent, clock, m, sampler } = setup()
    hub.bulk = true
    let release = () => {}
    hub.hold = new Promise<void>((r) => (release = r))
    const arrived = hub.arrival()
    clock.advance(INTERVAL)
    m.fire() // sample 1, its post held by the hub
    await arrived
    for (let i = 0; i < 3; i++) {
      clock.advance(INTERVAL)
      expect(m.fire()).toBe(1) // samples 2, 3, 4 on time, while the post is unanswered
    }
    expect(sampler.count()).toBe(4)
    hub.hold = null
    release()
    await agent.settled()
    // the newest goes live, the ones before it in one bulk
    expect(hub.seqs()).toEqual([1, 4, 2, 3])
    expect(hub.bulks).toEqual([2])
    expect(agent.queued().count).toBe(0)
  })

  test('stopping while a post is unanswered keeps the samples taken meanwhile in the queue', async () => {
    const { hub, agent, clock, m, stateDir } = setup()
    let release = () => {}
    hub.hold = new Promise<void>((r) => (release = r))
    const arrived = hub.arrival()
    clock.advance(INTERVAL)
    m.fire()
    await arrived
    clock.advance(INTERVAL)
    m.fire()
    const stopping = agent.stop()
    hub.hold = null
    release()
    await stopping
    expect(hub.seqs()).toEqual([1])
    const { queuedSamples } = await import('../../src/agent/agent.queue-files')
    expect(queuedSamples(stateDir)).toBe(1)
  })
})
