import { describe, expect, test } from 'bun:test'
import { matchPath, safeNext } from '../../web/src/lib/match'
import { parseBlock } from '../../web/src/lib/sse'

describe('matchPath', () => {
  const cases: [string, string, Record<string, string> | null][] = [
    ['/dashboard', '/dashboard', {}],
    ['/dashboard', '/dashboard/', {}],
    ['/dashboard', '/dashboards', null],
    ['/devices/:id', '/devices/dev_1', { id: 'dev_1' }],
    ['/devices/:id', '/devices/a%20b', { id: 'a b' }],
    ['/devices/:id', '/devices/%E0%A4%A', { id: '%E0%A4%A' }],
    ['/devices/:id', '/devices', null],
    ['/devices/:id', '/devices/a/b', null],
    ['/alerts/*', '/alerts', { '*': '' }],
    ['/alerts/*', '/alerts/al_1/history', { '*': 'al_1/history' }],
    ['/invite/:token', '/invite/vit_x', { token: 'vit_x' }],
    ['/', '/', {}],
  ]
  for (const [pattern, path, want] of cases) test(`${pattern} ~ ${path}`, () => expect(matchPath(pattern, path)).toEqual(want))
})

describe('safeNext: only paths on this origin', () => {
  const cases: [string | null, string][] = [
    [null, '/dashboard'],
    ['', '/dashboard'],
    ['/devices/x?range=24h', '/devices/x?range=24h'],
    ['//evil.example/', '/dashboard'],
    ['/\\evil.example', '/dashboard'],
    ['https://evil.example/', '/dashboard'],
    ['javascript:alert(1)', '/dashboard'],
  ]
  for (const [next, want] of cases) test(String(next), () => expect(safeNext(next)).toBe(want))
})

describe('parseBlock (text/event-stream)', () => {
  test('an event with id, type and data', () => {
    expect(parseBlock('id: 7-12\nevent: sample\ndata: {"type":"sample"}')).toEqual({ id: '7-12', event: 'sample', data: '{"type":"sample"}' })
  })
  test('data over several lines is joined with newlines; a missing space after the colon is fine', () => {
    expect(parseBlock('data:a\ndata: b')).toEqual({ id: null, event: 'message', data: 'a\nb' })
  })
  test('a ping (comment) is nothing', () => {
    expect(parseBlock(': ping')).toBeNull()
  })
  test('CRLF line ends', () => {
    expect(parseBlock('event: reset\r\ndata: {}')).toEqual({ id: null, event: 'reset', data: '{}' })
  })
})
