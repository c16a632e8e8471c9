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
  const origin = 'https://vigil.example:8443'
  const cases: [string | null, string][] = [
    [null, '/dashboard'],
    ['', '/dashboard'],
    ['/devices/x?range=24h', '/devices/x?range=24h'],
    ['/alerts#rules', '/alerts#rules'],
    ['https://vigil.example:8443/settings/keys', '/settings/keys'],
    // another host, however it is spelled: the browser resolves all of these off-site
    ['//evil.example/', '/dashboard'],
    ['/\\evil.example', '/dashboard'],
    ['\\\\evil.example', '/dashboard'],
    ['/\t/evil.example/phish', '/dashboard'],
    ['/\n/evil.example/phish', '/dashboard'],
    ['/\r/evil.example/phish', '/dashboard'],
    ['\t//evil.example', '/dashboard'],
    ['/\t\\evil.example', '/dashboard'],
    [' //evil.example', '/dashboard'],
    ['https://evil.example/', '/dashboard'],
    ['https:evil.example', '/evil.example'], // same scheme: a relative path on this origin
    ['http:evil.example', '/dashboard'],
    ['http://vigil.example:8443/', '/dashboard'],
    ['https://vigil.example/', '/dashboard'],
    ['https://vigil.example:8443@evil.example/', '/dashboard'],
    ['https://vigil.example.evil.example/', '/dashboard'],
    ['javascript:alert(1)', '/dashboard'],
    ['java\tscript:alert(1)', '/dashboard'],
    ['JAVASCRIPT:alert(1)', '/dashboard'],
    ['data:text/html,<script>alert(1)</script>', '/dashboard'],
    ['vbscript:msgbox(1)', '/dashboard'],
    ['blob:https://evil.example/x', '/dashboard'],
    ['http://[::1', '/dashboard'],
    [`/${'a'.repeat(3000)}`, '/dashboard'],
  ]
  for (const [next, want] of cases) test(JSON.stringify(next).slice(0, 60), () => expect(safeNext(next, origin)).toBe(want))

  test('the answer is the resolved path, never the raw text (no tab or newline survives)', () => {
    expect(safeNext('/a\tb/../c\n?x=1', origin)).toBe('/c?x=1')
  })
  test('a bad origin falls back rather than throwing', () => {
    expect(safeNext('/dashboard', 'not a url')).toBe('/dashboard')
    expect(safeNext('/alerts', 'not a url', '/signin')).toBe('/signin')
  })
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
