import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { Clock } from '../../lib/clock'

/** A stretch of time, in ms. */
export interface Gap {
  from: number
  to: number
}

/** Where the runs are kept between starts: a small file beside the database (null: memory only). */
export interface HubRunsStorage {
  read(): string | null
  write(text: string): void
}

/** runs older than this are forgotten: the rules look back a week at most */
export const KEEP_MS = 8 * 86_400_000
/** and at most this many, whatever happens */
const KEEP_RUNS = 500
/** how often a run says it is alive (the `ai.hub-alive` job) */
export const BEAT_MS = 60_000

/**
 * The hub's own runs, each from its start to its last sign of life (written every minute), kept
 * across restarts: the time between one run's last sign and the next one's start is when the hub
 * was away. A collector measures loss by connecting to the hub, so samples then are not the
 * network's fault (ai.rules.ts leaves them out). A run that died between two beats is taken to
 * have ended at its last beat: the gap errs on the long side by up to a minute.
 */
export function hubRuns(deps: { clock: Clock; storage: HubRunsStorage | null }) {
  const now = deps.clock.now()
  const runs = read(deps.storage).filter((r) => r.to > now - KEEP_MS && r.from <= now)
  const current: Gap = { from: now, to: now }
  runs.push(current)
  runs.splice(0, Math.max(0, runs.length - KEEP_RUNS))

  const save = () => {
    try {
      deps.storage?.write(JSON.stringify(runs.map((r) => [r.from, r.to])))
    } catch {
      // a read-only or full disk: the record is advisory; the ingest and the rules go on
    }
  }
  save()

  return {
    /** this run is alive now */
    beat() {
      current.to = deps.clock.now()
      while (runs.length > 1 && runs[0]!.to < current.to - KEEP_MS) runs.shift()
      save()
    },
    /** when the hub was not running, within [from, to] */
    gaps(from: number, to: number): Gap[] {
      const out: Gap[] = []
      for (let i = 1; i < runs.length; i++) {
        const gap = { from: runs[i - 1]!.to, to: runs[i]!.from }
        if (gap.to > gap.from && gap.to >= from && gap.from <= to) out.push(gap)
      }
      return out
    },
  }
}

export type HubRuns = ReturnType<typeof hubRuns>

/** What the engine reads of the hubs' runs: this file's record of one hub, or the database's of every hub (ai.hub-runs.pg.ts). */
export interface HubRunsPort {
  /** this hub is alive now */
  beat(): void | Promise<void>
  /** when no hub was running, within [from, to] */
  gaps(from: number, to: number): Gap[] | Promise<Gap[]>
}

/** The stretches between runs (each run from its start to its last sign of life), oldest first, that touch [from, to]. */
export function gapsBetween(runs: Gap[], from: number, to: number): Gap[] {
  const sorted = [...runs].sort((a, b) => a.from - b.from)
  const out: Gap[] = []
  let covered = sorted[0]?.to ?? 0
  for (let i = 1; i < sorted.length; i++) {
    const r = sorted[i]!
    const gap = { from: covered, to: r.from }
    if (gap.to > gap.from && gap.to >= from && gap.from <= to) out.push(gap)
    covered = Math.max(covered, r.to)
  }
  return out
}

function read(storage: HubRunsStorage | null): Gap[] {
  let text: string | null = null
  try {
    text = storage?.read() ?? null
  } catch {
    return []
  }
  if (!text) return []
  try {
    const v: unknown = JSON.parse(text)
    if (!Array.isArray(v)) return []
    return v
      .filter((r): r is [number, number] => Array.isArray(r) && Number.isFinite(r[0]) && Number.isFinite(r[1]) && r[0] <= r[1])
      .map(([from, to]) => ({ from, to }))
      .sort((a, b) => a.from - b.from)
  } catch {
    // a damaged file: start a new record
    return []
  }
}

/** The record's file beside a database file (hub-runs.json); null for a database in memory (tests, tools). */
export function hubRunsFile(databaseFile: string): HubRunsStorage | null {
  if (!databaseFile || databaseFile === ':memory:') return null
  const file = join(dirname(databaseFile), 'hub-runs.json')
  return {
    read: () => (existsSync(file) ? readFileSync(file, 'utf8') : null),
    // replaced in one step: a crash mid-write leaves the old record, never half of one
    write(text) {
      writeFileSync(`${file}.tmp`, text)
      renameSync(`${file}.tmp`, file)
    },
  }
}
