import { describe, expect, test } from 'bun:test'
import { propertyLocation } from '../../src/http/validation'

describe('propertyLocation', () => {
  test('names the one query parameter holding the offending coerced value', () => {
    expect(propertyLocation('http://x/v1/p?limit=0&offset=3', 0)).toEqual(['query', 'limit'])
    expect(propertyLocation('http://x/v1/p?limit=10&offset=-1', -1)).toEqual(['query', 'offset'])
  })
  test('falls back to the query as a whole when it cannot tell', () => {
    expect(propertyLocation('http://x/v1/p?limit=0&offset=0', 0)).toEqual(['query'])
    expect(propertyLocation('http://x/v1/p', 0)).toEqual(['query'])
  })
})
