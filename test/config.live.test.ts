import { expect, test } from 'bun:test'
import { loadConfig } from '../src/config'

test('VIGIL_LIVE_MAX_STREAMS: 1000 by default, a whole number from 1', () => {
  expect(loadConfig({}).liveMaxStreams).toBe(1000)
  expect(loadConfig({ VIGIL_LIVE_MAX_STREAMS: '50' }).liveMaxStreams).toBe(50)
  expect(() => loadConfig({ VIGIL_LIVE_MAX_STREAMS: '0' })).toThrow(/VIGIL_LIVE_MAX_STREAMS must be between 1/)
  expect(() => loadConfig({ VIGIL_LIVE_MAX_STREAMS: 'many' })).toThrow(/whole number/)
})
