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

describe('notice words', () => {
  const words = (metric: string, series: string) => {
    const sel = compileContainerSelector(metric) ?? compileDiskSelector(metric)
    if (!sel || 'error' in sel) throw new Error('compiles')
    return sel.words!(series)
  }

  test('yes/no and event fields say themselves, firing and recovered', () => {
    const said = (metric: string, series: string, firing: number, recovered: number) => {
      const w = words(metric, series)
      return [w.firing!(firing), w.recovered!(recovered)]
    }
    expect(said('container:*:unhealthy', 'api', 1, 0)).toEqual(['container api is unhealthy', 'container api is no longer unhealthy'])
    expect(said('container:*:exit_code', 'api', 3, 0)).toEqual(['container api exited with code 3', 'container api is no longer stopped with an error'])
    expect(said('container:*:oom_killed', 'api', 1, 0)).toEqual(['container api was OOM-killed', 'container api is no longer marked OOM-killed'])
    expect(said('container:*:restarts', 'api', 4, 1)).toEqual([
      'container api restarted 4 times in 15 min',
      'container api restarts settled (1 time in 15 min)',
    ])
    expect(said('container:*:running', 'api', 0, 1)).toEqual(['container api is not running', 'container api is running again'])
    expect(said('container:*:missing', 'api', 1, 0)).toEqual(['container api is gone (it was running)', 'container api is back'])
    expect(said('smart:*:failing', '/dev/sda', 1, 0)).toEqual(['disk /dev/sda is failing S.M.A.R.T.', 'disk /dev/sda passes S.M.A.R.T. again'])
  })

  test('figures keep a label and a unit', () => {
    expect(words('container:*:cpu_percent', 'api')).toEqual({ label: 'Container api CPU', unit: ' %' })
    expect(words('smart:*:temperature_c', '/dev/sda')).toEqual({ label: 'Disk /dev/sda temperature', unit: ' °C' })
  })
})
