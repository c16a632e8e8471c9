import { describe, expect, test } from 'bun:test'
import { classifyDbError } from '../../src/db/db-errors'
import { storageFaultError } from '../../src/http/storage-fault'
import { storageHealth } from '../../src/db/storage-health'

const fsError = (code: string) => Object.assign(new Error(`${code}: write failed`), { code })

describe("a fault met writing the samples' record files", () => {
  test('a full disk or quota is the same fault as SQLite full: 503 storage_full with Retry-After; a failing disk is storage_error', () => {
    expect(classifyDbError(fsError('ENOSPC'))).toBe('full')
    expect(classifyDbError(fsError('EDQUOT'))).toBe('full')
    expect(classifyDbError(fsError('EIO'))).toBe('io')
    expect(classifyDbError(fsError('ENOENT'))).toBeNull()
    const full = storageFaultError(fsError('ENOSPC'), undefined, 0)!
    expect(full.code).toBe('storage_full')
    expect(full.headers).toEqual({ 'retry-after': '60' })
  })
})

describe('PostgreSQL out of reach', () => {
  test('a connection refused, failed, timed out or closed is 503 database_unavailable with Retry-After, and no storage fault on record', () => {
    const health = storageHealth()
    for (const code of [
      'ERR_POSTGRES_CONNECTION_REFUSED',
      'ERR_POSTGRES_CONNECTION_FAILED',
      'ERR_POSTGRES_CONNECTION_TIMEOUT',
      'ERR_POSTGRES_CONNECTION_CLOSED',
    ]) {
      const e = storageFaultError(new Error('query failed', { cause: fsError(code) }), health, 0)!
      expect(e.code).toBe('database_unavailable')
      expect(e.status).toBe(503)
      expect(e.headers).toEqual({ 'retry-after': '5' })
    }
    expect(health.current(0)).toBeNull()
    expect(storageFaultError(fsError('ERR_POSTGRES_SYNTAX_ERROR'), health, 0)).toBeNull()
  })
})
