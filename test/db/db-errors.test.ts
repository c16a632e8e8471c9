import { describe, expect, test } from 'bun:test'
import { classifyDbError } from '../../src/db/db-errors'
import { storageFaultError } from '../../src/http/storage-fault'

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
