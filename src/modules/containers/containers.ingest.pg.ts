import type { SQL } from 'bun'
import type { Raw } from '../../db/pg/rows'
import { applyBlock, type Applied, type BlockStore, type ContainersIngest, deviceGone } from './containers.ingest'
import type { ContainersReceived } from './containers.model'
import { COL_LIST, type ContainerRow, UPDATABLE } from './containers.store'
import type { EngineRow } from './containers.engines'
import { containerRow, engineRow } from './containers.store.pg'

type Write = (tx: SQL) => Promise<unknown>

export interface ContainersIngestPgDeps {
  sql: SQL
  /** told of each block newer than the last one the device sent, after its commit (alert rules) */
  applied?: (a: Applied) => void
  /** the device reported (the devices' last-seen), after the block's commit */
  seen?: (deviceSeq: number) => void
}

const byName = (a: ContainerRow, b: ContainerRow) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

/**
 * applyBlock's reads answered from the rows read under the device's lock, its writes recorded
 * to be sent after, in order, in the same transaction. New containers take seqs drawn from the
 * table's own sequence beforehand (the packed series names containers by seq).
 */
function recorder(engine: EngineRow | null, existing: ContainerRow[], seqs: number[]) {
  const rows = new Map(existing.map((r) => [r.seq, { ...r }]))
  const writes: Write[] = []
  let late: { seq: number; ts: number } | null = null
  const store: BlockStore = {
    engine: () => engine,
    ofDevice: () => [...rows.values()].sort(byName),
    putEngine(e) {
      writes.push(
        (tx) => tx`INSERT INTO container_engines (device_id, client_id, kind, version, api_version, unavailable_reason, memory_accounting, ts)
          VALUES (${e.device_id}, ${e.client_id}, ${e.kind}, ${e.version}, ${e.api_version}, ${e.unavailable_reason}, ${e.memory_accounting}, ${e.ts})
          ON CONFLICT (device_id) DO UPDATE SET kind = excluded.kind, version = excluded.version, api_version = excluded.api_version,
            unavailable_reason = excluded.unavailable_reason, memory_accounting = excluded.memory_accounting, ts = excluded.ts`,
      )
    },
    insert(r) {
      const seq = seqs.shift()!
      const row = { ...r, seq }
      rows.set(seq, row)
      const values = COL_LIST.map((c) => row[c as keyof ContainerRow])
      writes.push((tx) => tx.unsafe(`INSERT INTO containers (${COL_LIST.join(', ')}) VALUES (${COL_LIST.map((_, i) => `$${i + 1}`).join(', ')})`, values))
      return seq
    },
    update(r) {
      rows.set(r.seq, { ...r })
      const values = UPDATABLE.map((c) => r[c as keyof ContainerRow])
      writes.push((tx) =>
        tx.unsafe(`UPDATE containers SET ${UPDATABLE.map((c, i) => `${c} = $${i + 1}`).join(', ')} WHERE seq = $${UPDATABLE.length + 1}`, [...values, r.seq]),
      )
    },
    addEvent(seq, ts, kind, exitCode, restartCount, engineId) {
      writes.push(
        (tx) => tx`INSERT INTO container_events (container_seq, ts, kind, exit_code, restart_count, engine_id)
          VALUES (${seq}, ${ts}, ${kind}, ${exitCode}, ${restartCount}, ${engineId})`,
      )
    },
    putSeries(deviceSeq, level, ts, data) {
      // a replay of a row the hub holds writes nothing; marked late all the same (a rollup of the same rows again)
      writes.push((tx) => tx`INSERT INTO container_series (device_seq, level, ts, data) VALUES (${deviceSeq}, ${level}, ${ts}, ${data}) ON CONFLICT DO NOTHING`)
      return true
    },
    markLate(seq, ts) {
      if (!late || ts < late.ts) late = { seq, ts }
    },
    countsChanged: () => {},
    dropGone(_deviceId, n) {
      const gone = [...rows.values()].filter((r) => r.gone_at !== null).sort((a, b) => a.gone_at! - b.gone_at! || a.seq - b.seq)
      const drop = gone.slice(0, n).map((r) => r.seq)
      for (const seq of drop) rows.delete(seq)
      if (drop.length) writes.push((tx) => tx`DELETE FROM containers WHERE seq = ANY(${drop}::bigint[])`)
      return drop.length
    },
  }
  return { store, writes, late: () => late }
}

/**
 * The containers' ingest on PostgreSQL: each block in a transaction of its own, the device's
 * blocks queued on an advisory lock whichever hub stores them, so each reads what the one before
 * wrote (the newest block decides the inventory, a replay only fills the series). The writes of
 * applyBlock (containers.ingest.ts) are the SQLite ingest's, sent in order; the rollup marks go
 * to the database (container_rollup_marks), for the job on whichever hub runs it.
 */
export function createContainersIngestPg(deps: ContainersIngestPgDeps): ContainersIngest {
  const { sql } = deps
  const apply = (r: ContainersReceived) =>
    sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(hashtextextended(${`vigil.containers:${r.deviceId}`}, 0))`
      const [e]: Raw[] = await tx`SELECT * FROM container_engines WHERE device_id = ${r.deviceId}`
      const existing = ((await tx`SELECT * FROM containers WHERE device_id = ${r.deviceId}`) as Raw[]).map(containerRow).sort(byName)
      const known = new Set(existing.map((c) => c.name))
      const fresh = new Set(r.block.items.map((c) => c.name).filter((n) => !known.has(n))).size
      const seqs = fresh
        ? ((await tx`SELECT nextval(pg_get_serial_sequence('containers', 'seq')) AS s FROM generate_series(1, ${fresh})`) as Raw[]).map((s) => Number(s.s))
        : []
      const rec = recorder(e ? engineRow(e) : null, existing, seqs)
      const result = applyBlock(rec.store, r)
      for (const write of rec.writes) await write(tx)
      const late = rec.late()
      if (late)
        await tx`INSERT INTO container_rollup_marks (device_seq, level, since) VALUES (${late.seq}, 1, ${late.ts})
          ON CONFLICT (device_seq, level) DO UPDATE SET since = LEAST(container_rollup_marks.since, excluded.since)`
      return result
    })

  return {
    forget: () => {},
    async submit(r) {
      let result: ContainerRow[] | null
      try {
        result = await apply(r)
      } catch (err) {
        throw deviceGone(err)
      }
      deps.seen?.(r.deviceSeq)
      if (result) deps.applied?.({ clientId: r.clientId, deviceId: r.deviceId, ts: r.ts, rows: result })
    },
  }
}
