import { describe, expect, test } from 'bun:test'
import { compileContainerSelector, globMatcher } from '../../../src/modules/containers/containers.selectors'
import { compileDiskSelector } from '../../../src/modules/disks/disks.selectors'

const observed = (name: string, over: Record<string, unknown> = {}) => ({
  name,
  labels: {},
  running: 1,
  unhealthy: 0,
  exit_code: 0,
  restarts: 0,
  oom_killed: 0,
  missing: 0,
  cpu_percent: 10,
  memory_percent: null,
  ...over,
})

describe('container selectors', () => {
  test('name patterns: * and ?, everything else literal', () => {
    expect(globMatcher('web-*')('web-1')).toBe(true)
    expect(globMatcher('web-?')('web-12')).toBe(false)
    expect(globMatcher('a.b')('axb')).toBe(false)
    expect(globMatcher('(x)')('(x)')).toBe(true)
  })

  test('each matching container is a series; a figure the collector lacks is no value', () => {
    const sel = compileContainerSelector('container:web*:memory_percent')
    if (!sel || 'error' in sel) throw new Error('compiles')
    expect(sel.source).toBe('containers')
    const values = { containers: [observed('web', { memory_percent: 50 }), observed('web2'), observed('db', { memory_percent: 90 })] }
    expect(sel.each(values)).toEqual([['web', 50]])
    expect(sel.words!('web')).toEqual({ label: 'Container web memory used of its limit', unit: ' %' })
  })

  test('by label', () => {
    const sel = compileContainerSelector('container[app=shop]:running')
    if (!sel || 'error' in sel) throw new Error('compiles')
    expect(sel.each({ containers: [observed('a', { labels: { app: 'shop' }, running: 0 }), observed('b')] })).toEqual([['a', 0]])
  })

  test('not a container metric: null, for the next compiler; a malformed one: the reason', () => {
    expect(compileContainerSelector('cpu_percent')).toBeNull()
    expect(compileContainerSelector('container:*')).toMatchObject({ error: expect.stringContaining('container:<name-pattern>:<field>') })
    expect(compileContainerSelector('container:*:size')).toMatchObject({ error: expect.stringContaining('size is not a container field') })
    expect(compileDiskSelector('disk_partitions:*')).toBeNull()
    expect(compileDiskSelector('smart:*:size')).toMatchObject({ error: expect.stringContaining('not a S.M.A.R.T. field') })
  })
})
