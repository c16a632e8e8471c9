import { describe, expect, test } from 'bun:test'
import { locateProperty } from '../../src/http/validation'

describe('locateProperty', () => {
  test('names the one query parameter holding the offending coerced value', () => {
    expect(locateProperty('http://x/v1/p?limit=0&offset=3', '/v1/p', 0)).toEqual(['query', 'limit'])
    expect(locateProperty('http://x/v1/p?limit=10&offset=-1', '/v1/p', -1)).toEqual(['query', 'offset'])
  })
  test('names the path parameter of the route pattern', () => {
    expect(locateProperty('http://x/v1/items/abc', '/v1/items/:id', 'abc')).toEqual(['path', 'id'])
  })
  test('falls back to the query as a whole when it cannot tell', () => {
    expect(locateProperty('http://x/v1/p?limit=0&offset=0', '/v1/p', 0)).toEqual(['query'])
    expect(locateProperty('http://x/v1/p', '/v1/p', 0)).toEqual(['query'])
  })
})
