import { AppError } from '../../http/errors'
import { systemClock, type Clock } from '../../lib/clock'
import { newId } from '../../lib/ids'
import type { ContainerIn, ContainersBlock, ContainersReceived } from './containers.model'
import { pack, RAW_WIDTH } from './containers.pack'
import type { ContainerRow, SqliteContainers } from './containers.store'
import type { EngineRow } from './containers.engines'
import { needsAttention, transitions } from './containers.transitions'
import { engineRowOf, unchangedBlocks } from './containers.ingest.unchanged'

/** What an applied block leaves for the alert rules: the device's containers as of its time. */
export interface Applied {
  clientId: string
  deviceId: string
  ts: number
  rows: ContainerRow[]
}

/**
 * What applying a block reads and writes, synchronously: SQLite's statements inside the group
 * commit's transaction, or on PostgreSQL the rows read under the device's lock with the writes
 * recorded and sent after (containers.ingest.pg.ts).
 */
export interface BlockStore {
  engine(deviceId: string): EngineRow | null
  /** the device's containers, by name */
  ofDevice(deviceId: string): ContainerRow[]
  putEngine(r: EngineRow): void
  /** the new container's seq */
  insert(r: ContainerRow): number
  update(r: ContainerRow): void
  addEvent(seq: number, ts: number, kind: string, exitCode: number | null, restartCount: number | null, engineId: string): void
  /** false when the device already had a series row of that level and time */
  putSeries(deviceSeq: number, level: number, ts: number, data: Uint8Array): boolean
  /** raw series written at `ts`: the rollup job rolls up from there */
  markLate(deviceSeq: number, ts: number): void
  countsChanged(clientId: string | null): void
  /** forgets a device's `n` longest-gone containers (by gone_at, then seq); how many went */
  dropGone(deviceId: string, n: number): number
}

/** The containers' ingest on either engine: a block stored, answered once committed. */
export interface ContainersIngest {
  submit(r: ContainersReceived): Promise<void>
  /** a device deleted: what was remembered of it goes */
  forget(deviceId: string): void
}

export interface ContainersIngestDeps {
  store: SqliteContainers
  /** when the engine rows' held times are written (every ENGINE_TIMES_EVERY_MS) */
  clock?: Clock
  /** told of each block newer than the last one the device sent, after its commit (alert rules) */
  applied?: (a: Applied) => void
  /** the device reported (the devices' last-seen), in the block's transaction: a batch of containers only is a sign of life too */
  seen?: (deviceSeq: number) => void
}

/** containers one device keeps at most (present ones always: a block lists at most 500) */
export const MAX_KEPT_PER_DEVICE = 1000

const parseTime = (s: string | null): number | null => {
  if (!s) return null
  const t = Date.parse(s)
  // Docker says "0001-01-01T00:00:00Z" for never
  return Number.isNaN(t) || t <= 0 ? null : t
}

const figures = (c: ContainerIn, accounting: boolean): (number | null)[] => [
  c.cpu_percent,
  accounting ? c.memory_used_bytes : null,
  accounting ? c.memory_limit_bytes : null,
  c.net_rx_bytes_per_sec,
  c.net_tx_bytes_per_sec,
  c.block_read_bytes_per_sec,
  c.block_write_bytes_per_sec,
  c.pids,
]

/**
 * Stores one block in the caller's transaction: its series row always (a replay fills the chart
 * where it was missing), the inventory, state history and engine row only when the block is
 * newer than the newest the device sent, so a replay never invents a transition. Returns the
 * inventory after the block when it was applied, else null. `known` is the device's engine row
 * when the caller knows it and that the device has no containers (no read of its inventory then).
 */
export function applyBlock(store: BlockStore, r: ContainersReceived, known?: EngineRow): ContainerRow[] | null {
  const engine = known ?? store.engine(r.deviceId)
  let ts = r.ts
  // the hub's own stamp after a sent one in the same millisecond: still the newer block
  if (!r.sent && engine && ts <= engine.ts) ts = engine.ts + 1
  const accounting = r.block.memory_accounting
  const existing = new Map(known ? [] : store.ofDevice(r.deviceId).map((c) => [c.name, c]))
  if (engine && ts <= engine.ts) {
    // older than what the hub shows: only its figures, for the containers the hub knows
    const entries = r.block.items.flatMap((c) => {
      const row = existing.get(c.name)
      return row ? [{ seq: row.seq, values: figures(c, accounting) }] : []
    })
    if (entries.length && store.putSeries(r.deviceSeq, 0, ts, pack(entries, RAW_WIDTH))) store.markLate(r.deviceSeq, ts)
    return null
  }
  const b = r.block
  store.putEngine(engineRowOf(r, ts))
  const entries: { seq: number; values: (number | null)[] }[] = []
  const seen = new Set<string>()
  for (const c of b.items) {
    if (seen.has(c.name)) continue // one name, one container: a second listing is ignored
    seen.add(c.name)
    const prev = existing.get(c.name) ?? null
    const startedAt = parseTime(c.started_at)
    const row: ContainerRow = {
      seq: prev?.seq ?? 0,
      id: prev?.id ?? newId('ctr'),
      client_id: r.clientId,
      device_id: r.deviceId,
      name: c.name,
      engine_id: c.id,
      image: c.image,
      labels: JSON.stringify(c.labels),
      state: c.state,
      health: c.health,
      exit_code: c.exit_code,
      oom_killed: c.oom_killed ? 1 : 0,
      restart_count: c.restart_count,
      started_at: startedAt,
      finished_at: parseTime(c.finished_at),
      cpu_percent: c.cpu_percent,
      memory_used_bytes: accounting ? c.memory_used_bytes : null,
      memory_limit_bytes: accounting ? c.memory_limit_bytes : null,
      net_rx: c.net_rx_bytes_per_sec,
      net_tx: c.net_tx_bytes_per_sec,
      block_read: c.block_read_bytes_per_sec,
      block_write: c.block_write_bytes_per_sec,
      pids: c.pids,
      attention: needsAttention(c) ? 1 : 0,
      first_seen_at: prev?.first_seen_at ?? ts,
      last_seen_at: ts,
      gone_at: null,
      gone_running: 0,
    }
    const changes = transitions(
      prev && {
        engineId: prev.engine_id,
        state: prev.state,
        health: prev.health,
        exitCode: prev.exit_code,
        oomKilled: prev.oom_killed === 1,
        restartCount: prev.restart_count,
        startedAt: prev.started_at,
      },
      c,
      startedAt,
    )
    if (prev) store.update(row)
    else row.seq = store.insert(row)
    if (!prev || prev.state !== row.state || prev.attention !== row.attention) store.countsChanged(r.clientId)
    for (const t of changes) store.addEvent(row.seq, ts, t.kind, t.exitCode, t.restartCount, c.id)
    existing.set(c.name, row)
    entries.push({ seq: row.seq, values: figures(c, accounting) })
  }
  // absent while the engine answered: gone. No engine (a socket down) says nothing of them.
  if (b.engine && !b.unavailable_reason) {
    for (const row of existing.values()) {
      if (seen.has(row.name) || row.state === 'gone') continue
      row.gone_running = row.state === 'running' ? 1 : 0
      row.state = 'gone'
      row.gone_at = ts
      store.countsChanged(r.clientId)
      row.attention = 0
      for (const k of ['cpu_percent', 'memory_used_bytes', 'net_rx', 'net_tx', 'block_read', 'block_write', 'pids'] as const) row[k] = null
      store.update(row)
      store.addEvent(row.seq, ts, 'gone', null, null, row.engine_id)
    }
  }
  if (entries.length && store.putSeries(r.deviceSeq, 0, ts, pack(entries, RAW_WIDTH))) store.markLate(r.deviceSeq, ts)
  // a host that runs throw-away containers under new names would keep them all for the retention: the longest gone go first
  if (existing.size > MAX_KEPT_PER_DEVICE && store.dropGone(r.deviceId, existing.size - MAX_KEPT_PER_DEVICE)) {
    store.countsChanged(r.clientId)
    return store.ofDevice(r.deviceId)
  }
  return [...existing.values()]
}

/**
 * Group commit for blocks: those that arrive in one turn of the event loop share one
 * transaction, each in its own savepoint, and every promise settles after COMMIT, so a batch is
 * answered only once its containers are stored. A block that changes nothing stored (an empty
 * one of a device without containers, its engine saying what it said, in a batch whose samples
 * mark the device seen: what a host without Docker sends with every sample) writes nothing: its
 * time is held with the engine row (containers.engines.ts) and it is answered at once, without a
 * transaction (containers.ingest.unchanged.ts).
 */
export function createContainersIngest(deps: ContainersIngestDeps): ContainersIngest {
  const clock = deps.clock ?? systemClock
  let queue: { r: ContainersReceived; resolve: () => void; reject: (e: unknown) => void }[] = []
  /** the devices with a block in the queue: their next block waits behind it */
  const queued = new Set<string>()
  let scheduled = false
  let timesWritten = clock.now()
  const unchanged = unchangedBlocks(deps.store)

  const timesDue = () => deps.store.holdsTimes() && Math.abs(clock.now() - timesWritten) >= ENGINE_TIMES_EVERY_MS

  function schedule() {
    if (scheduled) return
    scheduled = true
    setImmediate(flush)
  }

  function flush() {
    scheduled = false
    const batch = queue
    queue = []
    queued.clear()
    const results: (ContainerRow[] | null | Error)[] = []
    const writeTimes = timesDue()
    if (!batch.length && !writeTimes) return
    try {
      deps.store.transaction(() => {
        const seen = new Set<number>()
        for (const job of batch) {
          try {
            // an empty block that marks nothing gone (what a host without Docker sends with every
            // sample) writes one row, which one statement does atomically: no savepoint for it
            const one = writesOneRow(job.r.block)
            const known = unchanged.knownEmpty(job.r.deviceId)
            const result = one ? applyBlock(deps.store, job.r, known) : deps.store.transaction(() => applyBlock(deps.store, job.r))
            results.push(result)
            unchanged.remember(job.r.deviceId, result)
            if (!job.r.withSamples) seen.add(job.r.deviceSeq)
          } catch (err) {
            // rolled back: what was kept of the device may not be what is stored
            unchanged.forget(job.r.deviceId)
            deps.store.forgetEngine(job.r.deviceId)
            results.push(err as Error)
          }
        }
        if (deps.seen) for (const seq of seen) deps.seen(seq)
        if (writeTimes) {
          deps.store.writeHeldTimes()
          timesWritten = clock.now()
        }
      })
    } catch (err) {
      // rolled back: what was kept of these devices (and the times just written) was never stored
      for (const job of batch) unchanged.forget(job.r.deviceId)
      deps.store.forgetEngine()
      for (const job of batch) job.reject(deviceGone(err))
      return
    }
    for (let i = 0; i < batch.length; i++) {
      const job = batch[i]!
      const res = results[i]
      if (res instanceof Error) {
        job.reject(deviceGone(res))
        continue
      }
      job.resolve()
      if (res) deps.applied?.({ clientId: job.r.clientId, deviceId: job.r.deviceId, ts: job.r.ts, rows: res })
    }
  }

  return {
    /** a device deleted: its engine row went with it */
    forget: (deviceId: string) => {
      unchanged.forget(deviceId)
      deps.store.forgetEngine(deviceId)
    },
    submit(r: ContainersReceived): Promise<void> {
      // a block behind another of its device's in the queue waits its turn
      const done = queued.has(r.deviceId) ? undefined : unchanged.apply(r)
      if (done !== undefined) {
        if (timesDue()) schedule()
        if (done) deps.applied?.({ clientId: r.clientId, deviceId: r.deviceId, ts: r.ts, rows: done })
        return ANSWERED
      }
      return new Promise((resolve, reject) => {
        queue.push({ r, resolve, reject })
        queued.add(r.deviceId)
        schedule()
      })
    },
  }
}

const ANSWERED = Promise.resolve()

/**
 * How often the newest block times of unchanged engine rows are written, for every device at once.
 * The rows are wide (the engine's reason text): every 30 s, rewriting them for 100 devices was about
 * 110 B written per sample at a collector's 10 s. A restart reads a time at most this old, until
 * the device's next block (its next sample).
 */
export const ENGINE_TIMES_EVERY_MS = 300_000

/** A block that writes only its engine row: no containers listed, and none marked gone (no engine answered). */
const writesOneRow = (b: ContainersBlock) => b.items.length === 0 && !(b.engine && !b.unavailable_reason)

/** A device deleted between the batch's lookup and this write fails its foreign key: a 404, not a 500. */
export function deviceGone(err: unknown): unknown {
  if (err instanceof Error && /FOREIGN KEY/i.test(err.message)) return new AppError('not_found', 'Device not found')
  return err
}
