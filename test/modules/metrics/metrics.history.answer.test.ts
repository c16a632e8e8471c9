import { describe, expect, test } from 'bun:test'
import { historyAnswer, historyJson } from '../../../src/modules/metrics/metrics.service'
import { testApp } from '../../helpers/app'
import { tenantWithDevices } from '../../helpers/metrics'
import { hardwareSample, networkSample } from '../../helpers/samples'

const T0 = Date.UTC(2026, 0, 1)
const text = (b: Uint8Array) => new TextDecoder().decode(b)

describe('a history page handed to its answer', () => {
  test('is lent from the one shared buffer, without a copy of its own; a Response made from it keeps its bytes', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    t.clock.set(T0 + 3_600_000)
    const items = Array.from({ length: 30 }, (_, i) => ({
      recorded_at: new Date(T0 + i * 10_000).toISOString(),
      hardware: hardwareSample(i),
      network: networkSample(i),
    }))
    expect((await t.request('POST', '/v1/metrics/bulk', { body: { items }, headers: a.keyHeaders })).status).toBeLessThan(300)
    const q = (offset: number) => ({ limit: 10, offset })
    const lent: Uint8Array[] = []
    const answer = (json: Uint8Array) => {
      lent.push(json)
      return new Response(json)
    }
    const first = await historyAnswer(t.modules.metrics, a.clientId, 'hardware', a.deviceId, q(0), answer)
    const second = await historyAnswer(t.modules.metrics, a.clientId, 'network', a.deviceId, q(5), answer)
    // both pages were written into the same memory: neither was copied on the JS heap
    expect(lent[0]!.buffer).toBe(lent[1]!.buffer)
    expect(lent[0]!.byteOffset).toBe(lent[1]!.byteOffset)
    // the Response copied its body when made: the second page written over the first left it whole
    const firstText = await first.text()
    expect(text(lent[0]!)).not.toBe(firstText)
    expect(firstText).toBe(text(await historyJson(t.modules.metrics, a.clientId, 'hardware', a.deviceId, q(0))))
    expect(await second.text()).toBe(text(await historyJson(t.modules.metrics, a.clientId, 'network', a.deviceId, q(5))))
    expect(JSON.parse(firstText).items).toHaveLength(10)
  })

  test('historyJson answers a copy of its own that the next page does not overwrite', async () => {
    const t = testApp()
    const a = await tenantWithDevices(t)
    await t.request('POST', '/v1/metrics/batch', { body: { hardware: hardwareSample(1), network: networkSample(1) }, headers: a.keyHeaders })
    const one = await historyJson(t.modules.metrics, a.clientId, 'hardware', a.deviceId, { limit: 10, offset: 0 })
    const kept = text(one)
    await historyJson(t.modules.metrics, a.clientId, 'network', a.deviceId, { limit: 10, offset: 0 })
    expect(text(one)).toBe(kept)
    expect(JSON.parse(kept).total).toBe(1)
  })
})
