import { describe, expect, test } from 'bun:test'
import { needsAttention, transitions, type Previous } from '../../../src/modules/containers/containers.transitions'
import { container } from './fixtures'

const prev = (over: Partial<Previous> = {}): Previous => ({
  engineId: 'web-id-1',
  state: 'running',
  health: 'none',
  exitCode: null,
  oomKilled: false,
  restartCount: 0,
  startedAt: 1000,
  ...over,
})
const kinds = (p: Previous | null, next: ReturnType<typeof container>, startedAt: number | null = 1000) => transitions(p, next, startedAt).map((t) => t.kind)

describe('container transitions', () => {
  test('first seen: created, and what it is doing', () => {
    expect(kinds(null, container('web'))).toEqual(['created', 'started'])
    expect(kinds(null, container('web', { state: 'exited', exit_code: 3 }))).toEqual(['created', 'stopped'])
    expect(kinds(null, container('web', { state: 'created' }))).toEqual(['created'])
  })

  test('the same name with a new engine id is a re-created container', () => {
    expect(kinds(prev(), container('web', { id: 'web-id-2' }))).toEqual(['created', 'started'])
  })

  test('stopped carries its exit code; OOM-killed is its own event', () => {
    const out = transitions(prev(), container('web', { state: 'exited', exit_code: 137, oom_killed: true }), 1000)
    expect(out).toEqual([
      { kind: 'stopped', exitCode: 137, restartCount: null },
      { kind: 'oom_killed', exitCode: 137, restartCount: null },
    ])
  })

  test('started again, unpaused, restarted by its policy or by hand', () => {
    expect(kinds(prev({ state: 'exited' }), container('web'))).toEqual(['started'])
    expect(kinds(prev({ state: 'paused' }), container('web'))).toEqual([])
    expect(kinds(prev({ restartCount: 1 }), container('web', { restart_count: 2 }))).toEqual(['restarted'])
    expect(kinds(prev(), container('web'), 5000)).toEqual(['restarted'])
    expect(kinds(prev(), container('web'), 1000)).toEqual([])
  })

  test('unhealthy, and healthy again only after unhealthy', () => {
    expect(kinds(prev({ health: 'healthy' }), container('web', { health: 'unhealthy' }))).toEqual(['unhealthy'])
    expect(kinds(prev({ health: 'unhealthy' }), container('web', { health: 'healthy' }))).toEqual(['healthy'])
    expect(kinds(prev({ health: 'starting' }), container('web', { health: 'healthy' }))).toEqual([])
  })

  test('needs attention: unhealthy, exited non-zero, restarting, OOM-killed', () => {
    expect(needsAttention(container('a'))).toBe(false)
    expect(needsAttention(container('a', { health: 'unhealthy' }))).toBe(true)
    expect(needsAttention(container('a', { state: 'exited', exit_code: 0 }))).toBe(false)
    expect(needsAttention(container('a', { state: 'exited', exit_code: 1 }))).toBe(true)
    expect(needsAttention(container('a', { state: 'restarting' }))).toBe(true)
    expect(needsAttention(container('a', { oom_killed: true }))).toBe(true)
  })
})
