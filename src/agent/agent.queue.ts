import { Database } from 'bun:sqlite'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Clock } from '../lib/clock'
import type { Logger } from '../lib/logger'

/**
 * Bounds of the on-disk queue. A sample is ~3-4 KB of JSON, so the size bound holds about
 * two days of 10 s samples on a typical server; the age bound drops what the hub would
 * hardly chart anyway (its raw retention is shorter).
 */
export interface QueueLimits {
  maxBytes: number
  maxAgeMs: number
}

export const DEFAULT_QUEUE_LIMITS: QueueLimits = { maxBytes: 64 * 1024 * 1024, maxAgeMs: 7 * 24 * 3_600_000 }

export interface QueuedSample {
  id: number
  recordedAt: number
  body: string
}

/**
 * Samples the hub did not take yet, in a small SQLite file in the agent's state dir: it
 * survives agent restarts and reboots (WAL, synchronous=NORMAL: a power cut may lose the last
 * commit, never corrupt the file). Oldest first; when a bound is passed, the oldest go first,
 * with a log line saying how many.
 */
export function openQueue(stateDir: string, deps: { clock: Clock; log: Logger; limits?: QueueLimits }) {
  const limits = deps.limits ?? DEFAULT_QUEUE_LIMITS
  mkdirSync(stateDir, { recursive: true, mode: 0o700 })
  const db = new Database(join(stateDir, 'queue.db'), { create: true, strict: true })
  db.run('PRAGMA journal_mode = WAL')
  db.run('PRAGMA synchronous = NORMAL')
  db.run('PRAGMA busy_timeout = 1000')
  db.run('CREATE TABLE IF NOT EXISTS queue (id INTEGER PRIMARY KEY AUTOINCREMENT, recorded_at INTEGER NOT NULL, bytes INTEGER NOT NULL, body TEXT NOT NULL)')
  const insert = db.prepare('INSERT INTO queue (recorded_at, bytes, body) VALUES ($recordedAt, $bytes, $body)')
  const oldest = db.prepare<{ id: number; recordedAt: number; body: string }, { n: number }>(
    'SELECT id, recorded_at AS recordedAt, body FROM queue ORDER BY id LIMIT $n',
  )
  const remove = db.prepare('DELETE FROM queue WHERE id = $id')
  const removeMany = db.transaction((ids: number[]) => {
    for (const id of ids) remove.run({ id })
  })
  const stats = db.prepare<{ n: number; bytes: number }, []>('SELECT count(*) AS n, coalesce(sum(bytes), 0) AS bytes FROM queue')
  const expire = db.prepare('DELETE FROM queue WHERE recorded_at < $cutoff')
  const dropOldest = db.prepare('DELETE FROM queue WHERE id IN (SELECT id FROM queue ORDER BY id LIMIT $n)')

  /** Drops by age, then the oldest until the size bound holds. */
  const enforce = db.transaction(() => {
    const aged = expire.run({ cutoff: deps.clock.now() - limits.maxAgeMs }).changes
    if (aged) deps.log.warn('agent queue: dropped samples older than the age limit', { dropped: aged, max_age_hours: limits.maxAgeMs / 3_600_000 })
    let { n, bytes } = stats.get()!
    let evicted = 0
    while (bytes > limits.maxBytes && n > 0) {
      // as many of the oldest as the excess is likely to hold, in one statement
      const over = Math.max(1, Math.ceil(((bytes - limits.maxBytes) / bytes) * n))
      evicted += dropOldest.run({ n: over }).changes
      ;({ n, bytes } = stats.get()!)
    }
    if (evicted) deps.log.warn('agent queue: full, dropped the oldest samples', { dropped: evicted, max_bytes: limits.maxBytes })
  })

  return {
    push(body: string, recordedAt: number): void {
      insert.run({ recordedAt, bytes: Buffer.byteLength(body), body })
      enforce()
    },
    /** up to `n` samples, oldest first; they stay until `remove` */
    oldest(n: number): QueuedSample[] {
      return oldest.all({ n })
    },
    remove(id: number): void {
      remove.run({ id })
    },
    /** several at once, in one transaction (one commit for a bulk the hub answered) */
    removeMany(ids: number[]): void {
      removeMany(ids)
    },
    size(): { count: number; bytes: number } {
      const { n, bytes } = stats.get()!
      return { count: n, bytes }
    },
    close(): void {
      db.close()
    },
  }
}

export type Queue = ReturnType<typeof openQueue>
