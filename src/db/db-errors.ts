/** What kind of storage fault a thrown error is, if any. */
export type DbFault = 'corrupt' | 'full' | 'io'

const BY_MESSAGE: [RegExp, DbFault][] = [
  [/database disk image is malformed|file is not a database/i, 'corrupt'],
  [/database or disk is full/i, 'full'],
  [/disk I\/O error/i, 'io'],
]

/**
 * A damaged file, a full disk or a failing disk: not a bug in the request, and not something a
 * retry of the same request fixes soon (a full disk may be freed). Recognised by SQLite's
 * extended code (SQLITE_CORRUPT_*, SQLITE_NOTADB, SQLITE_FULL, SQLITE_IOERR_*), else by its
 * message, following `cause` through wrappers.
 */
export function classifyDbError(err: unknown): DbFault | null {
  for (let e = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = String((e as { code?: unknown }).code ?? '')
    if (code.startsWith('SQLITE_CORRUPT') || code.startsWith('SQLITE_NOTADB')) return 'corrupt'
    if (code.startsWith('SQLITE_FULL')) return 'full'
    if (code.startsWith('SQLITE_IOERR')) return 'io'
    // the same faults met writing a file of its own (the metrics' hot records)
    if (code === 'ENOSPC' || code === 'EDQUOT') return 'full'
    if (code === 'EIO') return 'io'
    for (const [re, fault] of BY_MESSAGE) if (re.test(e.message)) return fault
  }
  return null
}
