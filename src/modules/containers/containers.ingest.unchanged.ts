import type { ContainersReceived } from './containers.model'
import type { ContainerRow, SqliteContainers } from './containers.store'
import type { EngineRow } from './containers.engines'

/** The engine row a block newer than the device's newest says, as of `ts`. */
export const engineRowOf = (r: ContainersReceived, ts: number): EngineRow => ({
  device_id: r.deviceId,
  client_id: r.clientId,
  kind: r.block.engine?.kind ?? null,
  version: r.block.engine?.version ?? null,
  api_version: r.block.engine?.api_version ?? null,
  unavailable_reason: r.block.unavailable_reason,
  memory_accounting: r.block.memory_accounting ? 1 : 0,
  ts,
})

/** devices remembered as without containers at most */
const MAX_REMEMBERED = 100_000

/**
 * The blocks that change nothing stored, answered without a transaction: an empty block of a
 * device whose last applied block left it no containers, its engine saying what it said, in a
 * batch whose samples mark the device seen (what a host without Docker sends with every sample).
 * Its time is held with the engine row (containers.engines.ts), written later for every such
 * device at once.
 */
export function unchangedBlocks(store: SqliteContainers) {
  /**
   * The devices whose last applied block left them no containers: the next block of such a
   * device needs no read of its inventory. Only the containers ingest writes their rows (a
   * device deleted goes: forget). Bounded.
   */
  const empty = new Set<string>()

  return {
    /** what a block applied in a transaction left the device (null: an older block, which changed nothing) */
    remember(deviceId: string, result: ContainerRow[] | null) {
      if (result === null) return
      if (result.length) return void empty.delete(deviceId)
      if (empty.size >= MAX_REMEMBERED && !empty.has(deviceId)) empty.delete(empty.values().next().value!)
      empty.add(deviceId)
    },
    /** the device's engine row when it is known to have no containers (no read of its inventory then) */
    knownEmpty: (deviceId: string): EngineRow | undefined => (empty.has(deviceId) ? (store.engine(deviceId) ?? undefined) : undefined),
    /** the block applied without a write (its rows: none), null for an older block, undefined when it must be written */
    apply(r: ContainersReceived): ContainerRow[] | null | undefined {
      if (!r.withSamples || r.block.items.length || !empty.has(r.deviceId)) return undefined
      const engine = store.engine(r.deviceId)
      if (!engine) return undefined
      let ts = r.ts
      if (!r.sent && ts <= engine.ts) ts = engine.ts + 1
      // older than the newest: its figures go to the containers the device has, which are none
      if (ts <= engine.ts) return null
      return store.holdEngine(engineRowOf(r, ts)) ? [] : undefined
    },
    /** what was kept of a device may not be what is stored (a rolled-back block, a device deleted) */
    forget: (deviceId: string) => void empty.delete(deviceId),
  }
}
