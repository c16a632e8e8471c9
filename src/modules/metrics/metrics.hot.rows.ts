import type { Database } from 'bun:sqlite'
import { closeSync, fdatasyncSync, openSync } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'
import { FIELDS, RAW_TABLE, type MetricKind } from './metrics.fields'
import type { HotPart } from './metrics.hot'

/*
 * The hot samples' rows in SQLite (metrics.hot.store.ts keeps their records): the in-memory
 * mirror `temp.metric_hot_rows` on one connection, the temp view named as the raw table over it
 * and main's, and the statements the hot store runs on them.
 */

/** `kinds` bit of a row whose parts live in the hot records (the in-memory mirror only) */
export const HOT_BIT = 8
/** the raw table on disk, for writes (the unqualified name is the view on the writer's connection) */
export const RAW_MAIN = `main.${RAW_TABLE}`
/** the in-memory mirror of the hot samples' rows */
export const HOT_ROWS = 'temp.metric_hot_rows'

/**
 * A device's newest row through the view (`where` names the device and kind): `cols`, then its id,
 * which the caller drops. SQLite answers ORDER BY … LIMIT over the view's UNION ALL by merging the
 * two tables' (device_seq, ts) indexes only when every ORDER BY term is a result column; with the
 * id left out of the columns it read every row of the device and sorted them (about a second for
 * a month of samples at 10 s, per device).
 */
export const newestRowSql = (cols: string, where: string) => `SELECT ${cols}, id FROM ${RAW_TABLE} WHERE ${where} ORDER BY ts DESC, id DESC LIMIT 1`

const HOT_COLS = [...FIELDS.hardware, ...FIELDS.network].map((f) => f.name)
const ROW_COLS = ['id', 'device_seq', 'ts', 'kinds', ...HOT_COLS, 'hw_rest', 'net_rest']

/** Makes the mirror, its view and trigger on this connection (if not there yet), and prepares what the hot store runs on them. */
export function openHotRows(sqlite: Database) {
  const types = [...FIELDS.hardware, ...FIELDS.network].map((f) => `${f.name} ${f.integer ? 'INTEGER' : 'REAL'}`)
  // rows in the order they arrive, the sample id in an index beside them: ids come in runs per
  // device (metrics.hot.store.ts), so keyed by id a group of 200 devices' samples wrote into 200
  // places of the table; in arrival order it fills its last pages (an insert cost a quarter less CPU in a bench of 200 devices)
  sqlite.run(
    `CREATE TEMP TABLE IF NOT EXISTS metric_hot_rows (id INTEGER NOT NULL UNIQUE, device_seq INTEGER NOT NULL, ts INTEGER NOT NULL, kinds INTEGER NOT NULL, ${types.join(', ')}, hw_rest TEXT, net_rest TEXT, segment INTEGER NOT NULL)`,
  )
  sqlite.run('CREATE UNIQUE INDEX IF NOT EXISTS temp.metric_hot_rows_device_ts ON metric_hot_rows (device_seq, ts)')
  sqlite.run(
    `CREATE TEMP VIEW IF NOT EXISTS ${RAW_TABLE} AS SELECT ${ROW_COLS.join(', ')} FROM ${RAW_MAIN} UNION ALL SELECT ${ROW_COLS.join(', ')} FROM temp.metric_hot_rows`,
  )
  // a deleted device's samples leave the reads with it (its records go with their segment)
  sqlite.run(
    'CREATE TEMP TRIGGER IF NOT EXISTS metric_hot_rows_device_gone AFTER DELETE ON main.devices BEGIN DELETE FROM temp.metric_hot_rows WHERE device_seq = OLD.seq; END',
  )
  // a new sample's row with all its hot values in one statement (the parts it lacks are null)
  const insertRow = sqlite.prepare(
    `INSERT INTO temp.metric_hot_rows (id, device_seq, ts, kinds, segment, ${HOT_COLS.join(', ')}) VALUES (${['?', '?', '?', '?', '?', ...HOT_COLS.map(() => '?')].join(', ')})`,
  )
  const noValues: Record<MetricKind, null[]> = { hardware: FIELDS.hardware.map(() => null), network: FIELDS.network.map(() => null) }
  const reloadRow = sqlite.prepare(`INSERT OR IGNORE INTO temp.metric_hot_rows (id, device_seq, ts, kinds, segment) VALUES (?, ?, ?, ${HOT_BIT}, ?)`)
  const setValues: Record<MetricKind, ReturnType<typeof sqlite.prepare>> = {
    hardware: sqlite.prepare(`UPDATE temp.metric_hot_rows SET kinds = kinds | 1, ${FIELDS.hardware.map((f) => `${f.name} = ?`).join(', ')} WHERE id = ?`),
    network: sqlite.prepare(`UPDATE temp.metric_hot_rows SET kinds = kinds | 2, ${FIELDS.network.map((f) => `${f.name} = ?`).join(', ')} WHERE id = ?`),
  }
  const inMain = sqlite.query<{ one: number }, [number]>(`SELECT 1 AS one FROM ${RAW_MAIN} WHERE id = ?`)
  const moveToMain = sqlite.prepare(
    `INSERT INTO ${RAW_MAIN} (${ROW_COLS.join(', ')}) SELECT id, device_seq, ts, (kinds & ~${HOT_BIT}) | ?2, ${HOT_COLS.join(', ')}, NULL, NULL
     FROM temp.metric_hot_rows WHERE id IN (SELECT value FROM json_each(?1))`,
  )
  const dropRows = sqlite.prepare('DELETE FROM temp.metric_hot_rows WHERE id IN (SELECT value FROM json_each(?1))')
  const orphans = sqlite.prepare('DELETE FROM temp.metric_hot_rows WHERE device_seq NOT IN (SELECT seq FROM main.devices)')
  const unsealedIn = sqlite.query<{ n: number }, [number]>('SELECT count(*) AS n FROM temp.metric_hot_rows WHERE segment <= ?')
  const dropRow = sqlite.prepare('DELETE FROM temp.metric_hot_rows WHERE id = ?')
  const maxId = sqlite.query<{ a: number | null }, []>(`SELECT max(id) AS a FROM ${RAW_MAIN}`)

  return {
    /** a new sample's row with all its hot values in one statement (the parts it lacks are null) */
    insert(sampleId: number, seq: number, ts: number, kinds: number, segment: number, parts: HotPart[]) {
      const hw = parts.find((p) => p.kind === 'hardware')
      const net = parts.find((p) => p.kind === 'network')
      insertRow.run(sampleId, seq, ts, HOT_BIT | kinds, segment, ...(hw?.values ?? noValues.hardware), ...(net?.values ?? noValues.network))
    },
    /** parts added to a hot sample's row */
    setParts(sampleId: number, parts: HotPart[]) {
      for (const p of parts) setValues[p.kind].run(...p.values, sampleId)
    },
    /** a record read back at start: its sample's row, or its parts added to it */
    reload(sampleId: number, seq: number, ts: number, segment: number, parts: HotPart[]) {
      reloadRow.run(sampleId, seq, ts, segment)
      for (const p of parts) setValues[p.kind].run(...p.values, sampleId)
    },
    /** whether the sample is sealed already (its row is main's) */
    inMain: (sampleId: number) => !!inMain.get(sampleId),
    /** moves the rows into the raw table (their values, no texts) and out of the mirror */
    seal(ids: number[], sealedBit: number) {
      const json = JSON.stringify(ids)
      moveToMain.run(json, sealedBit)
      dropRows.run(json)
    },
    drop: (sampleId: number) => void dropRow.run(sampleId),
    /** the rows of devices deleted meanwhile go */
    dropOrphans: () => void orphans.run(),
    /** whether a row of this segment or an older one is still unsealed */
    unsealedIn: (segment: number) => unsealedIn.get(segment)!.n > 0,
    /** the highest sample id in the raw table on disk */
    maxId: () => maxId.get()!.a ?? 0,
  }
}

/**
 * Before a segment's file goes, the transactions that sealed its samples must be on the disk:
 * under synchronous=NORMAL SQLite does not sync its WAL at COMMIT, and a power cut could keep
 * the file's removal and lose the sealing. Once per segment, so it costs nothing.
 */
export function syncWal(sqlite: Database) {
  const wal = walPathOf(sqlite)
  if (wal === null) return
  try {
    const fd = openSync(wal, 'r')
    try {
      fdatasyncSync(fd)
    } finally {
      closeSync(fd)
    }
  } catch {
    // no WAL file: the sealing is already in the database file, which the checkpoint synced
  }
}

/**
 * syncWal's flush waited for off the event loop (a thread of the runtime's): with up to 32 MB of
 * the WAL unsynced after a run of deletes (db/bulk-pause.ts), the flush took 30 to 210 ms.
 */
export async function syncWalOffLoop(sqlite: Database): Promise<void> {
  const wal = walPathOf(sqlite)
  if (wal === null) return
  let file: FileHandle
  try {
    file = await open(wal, 'r')
  } catch {
    return // no WAL file: as syncWal
  }
  try {
    await file.datasync()
  } finally {
    await file.close()
  }
}

/** a database file's WAL, or null for one in memory */
function walPathOf(sqlite: Database): string | null {
  const path = sqlite.filename
  return path === '' || path === ':memory:' ? null : `${path}-wal`
}
