/**
 * Direct database seeding for the bench: accounts and keys (until the accounts endpoints are
 * on this branch the operator part is done here), and millions of samples written the way
 * live ingest lays them out (time-major across devices), then sealed into their long-lived form
 * by the metrics module's own sealing job and rolled up into the tiers: the reads measure what a
 * hub serves once its data is older than an hour, not rows it would still convert.
 */
import type { Database } from 'bun:sqlite'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { createBlockStore } from '../../src/modules/metrics/metrics.block.store'
import { RAW_MAIN } from '../../src/modules/metrics/metrics.hot.rows'
import { createSealer } from '../../src/modules/metrics/metrics.seal'
import { sha256Hex } from '../../src/lib/crypto'
import { newId } from '../../src/lib/ids'
import { generateApiKey, keyPrefixOf } from '../../src/modules/api-keys/api-keys.format'
import { FIELDS } from '../../src/modules/metrics/metrics.fields'
import { rollupAll } from '../../src/modules/metrics/metrics.rollup'
import { createRollupStore } from '../../src/modules/metrics/metrics.rollup.store'
import { toSampleRow } from '../../src/modules/metrics/metrics.rows'
import { hardwareSample, networkSample } from '../../test/helpers/samples'
import { evolve, type Sample } from './storage-samples'

export interface SeededTenant {
  clientId: string
  userId: string
  keys: string[]
  devices: { id: string; seq: number }[]
}

/** Clients with an owner and `keysPerTenant` default-scope keys; devices too when asked. */
export function seedAccounts(
  sqlite: Database,
  opts: { tenants: number; keysPerTenant: number; maxDevices: number; devicesPerTenant: number; now: number; label?: string },
): SeededTenant[] {
  const label = opts.label ?? 'bench'
  const out: SeededTenant[] = []
  sqlite.transaction(() => {
    for (let i = 0; i < opts.tenants; i++) {
      const clientId = newId('cli')
      const userId = newId('usr')
      sqlite.run(
        "INSERT INTO clients (id, name, plan_type, subscription_status, max_devices, max_users, created_at, updated_at) VALUES (?, ?, 'free', 'none', ?, 50, ?, ?)",
        [clientId, `${label} ${i}`, opts.maxDevices, opts.now, opts.now],
      )
      sqlite.run('INSERT INTO users (id, email, password_hash, client_id, role, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
        userId,
        `${label}${i}@example.test`,
        'x',
        clientId,
        i === 0 ? 'admin' : 'user',
        opts.now,
        opts.now,
      ])
      sqlite.run("INSERT INTO members (id, client_id, user_id, role, status, created_at, updated_at) VALUES (?, ?, ?, 'owner', 'active', ?, ?)", [
        newId('mem'),
        clientId,
        userId,
        opts.now,
        opts.now,
      ])
      const keys: string[] = []
      for (let k = 0; k < opts.keysPerTenant; k++) {
        const key = generateApiKey()
        sqlite.run(
          'INSERT INTO api_keys (id, client_id, name, key_prefix, key_hash, scopes, is_active, created_at) VALUES (?, ?, \'bench\', ?, ?, \'["metrics:write","recommendations:write"]\', 1, ?)',
          [newId('key'), clientId, keyPrefixOf(key), sha256Hex(key), opts.now],
        )
        keys.push(key)
      }
      const devices: { id: string; seq: number }[] = []
      for (let d = 0; d < opts.devicesPerTenant; d++) {
        const id = newId('dev')
        const seq = sqlite.query<{ seq: number }, []>('INSERT INTO device_seqs DEFAULT VALUES RETURNING seq').get()!.seq
        sqlite.run(
          "INSERT INTO devices (id, client_id, fingerprint, hostname, os, os_version, arch, created_at, updated_at, seq) VALUES (?, ?, ?, ?, 'linux', '6.6', 'arm64', ?, ?, ?)",
          [id, clientId, `fp-${i}-${d}`, `host-${i}-${d}`, opts.now, opts.now, seq],
        )
        devices.push({ id, seq })
      }
      out.push({ clientId, userId, keys, devices })
    }
  })()
  return out
}

/**
 * `perDevice` batches (a hardware and a network sample) per device at 10 s, ending at `end`,
 * in big transactions, rows shaped as ingest writes them; then sealed and every rollup tier.
 */
export async function seedSamples(sqlite: Database, seqs: number[], perDevice: number, end: number, onProgress?: (done: number) => void) {
  await insertSamples(sqlite, seqs, perDevice, end, onProgress)
  await rollupAll(createRollupStore(sqlite), { now: end + 60_000, devices: seqs })
}

/** Ids a device takes at a time, as the hub's hot store hands them out (metrics.hot.store.ts) */
const ID_RUN = 64

/** Samples in the pool the seed cycles through: an hour at 10 s, each moved on from the one before. */
const POOL = 360

/**
 * The devices of a call (its first ones) whose samples carry the real sample's nested texts, sealed
 * into blocks; the others carry their hot values only, which gives the raw table and its index
 * their size at 10 M samples. The benches read the first device; sealing every device's texts
 * (86,000 blocks at 10 M samples, about 7 ms each) would take the seed a quarter of an hour and
 * 20 GB of rows on the way.
 */
const WITH_TEXTS = 2

/**
 * The real sample `dist/vigil agent --once` prints on this machine (about 3.7 KB), moved along in
 * time (scripts/bench/storage-samples.ts); the tests' small samples when there is no executable.
 */
function samplePool(): Sample[] {
  const vigil = join(import.meta.dir, '../../dist/vigil')
  let base: Sample = { hardware: hardwareSample(), network: networkSample() } as Sample
  if (existsSync(vigil)) {
    const p = Bun.spawnSync([vigil, 'agent', '--once'], { stdout: 'pipe', stderr: 'ignore' })
    if (p.exitCode === 0) base = JSON.parse(p.stdout.toString()) as Sample
  }
  delete base.recorded_at
  return evolve(base, POOL, 0, 10_000, 7)
}

/**
 * The rows of seedSamples without the rollup (for seeding groups of devices with different
 * histories, then rolling up once), sealed: every block whose first sample is an hour old is
 * moved into its long-lived form by the hub's own sealer, as a running hub does within minutes
 * (the newest hour stays rows with their texts, which the hub seals as they age).
 */
export async function insertSamples(sqlite: Database, seqs: number[], perDevice: number, end: number, onProgress?: (done: number) => void) {
  const STEP = 10_000
  const cols = ['id', 'device_seq', 'ts', 'kinds', ...FIELDS.hardware.map((f) => f.name), ...FIELDS.network.map((f) => f.name), 'hw_rest', 'net_rest']
  const insert = sqlite.prepare(`INSERT INTO ${RAW_MAIN} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`)
  const pool = samplePool().map((s) => ({ hw: toSampleRow('hardware', s.hardware, 0), net: toSampleRow('network', s.network, 0) }))
  const withTexts = new Set(seqs.slice(0, WITH_TEXTS))
  const start = end - (perDevice - 1) * STEP
  const PER_TX = 2_000 // time steps per transaction (× devices rows)
  // ids as the hub hands them out: ID_RUN at a time per device, so a device's neighbouring samples
  // lie side by side in the table as they do once sealed (not one row per page, as plain time-major
  // inserts would leave them: a page of 120 would then read 120 pages of the table)
  let nextId = (sqlite.query<{ id: number | null }, []>(`SELECT max(id) AS id FROM ${RAW_MAIN}`).get()?.id ?? 0) + 1
  const runs = new Map<number, { next: number; end: number }>()
  const takeId = (seq: number) => {
    let run = runs.get(seq)
    if (!run || run.next >= run.end) {
      run = { next: nextId, end: nextId + ID_RUN }
      nextId += ID_RUN
      runs.set(seq, run)
    }
    return run.next++
  }
  for (let s0 = 0; s0 < perDevice; s0 += PER_TX) {
    sqlite.transaction(() => {
      for (let s = s0; s < Math.min(perDevice, s0 + PER_TX); s++) {
        const ts = start + s * STEP
        for (const seq of seqs) {
          // each device at its own place in the pool, so neighbouring devices' blocks differ
          const { hw, net } = pool[(s + seq * 37) % POOL]!
          const texts = withTexts.has(seq)
          const hv = hw.values.slice()
          hv[0] = (s * 7 + seq * 13) % 100 // cpu_percent
          hv[8] = 30 + ((s + seq) % 40) // ram_percent
          const nv = net.values.slice()
          nv[2] = 1_000_000 + s * 1500 // bytes_sent_total
          nv[3] = 5_000_000 + s * 9000 // bytes_recv_total
          nv[10] = 5 + ((s * 3 + seq) % 30) // latency_avg_ms
          insert.run(takeId(seq), seq, ts, 3, ...hv, ...nv, texts ? hw.rest : null, texts ? net.rest : null)
        }
      }
    })()
    onProgress?.(Math.min(perDevice, s0 + PER_TX) * seqs.length * 2)
  }
  // a live statement keeps the connection open past close(), and the WAL it leaves behind
  // reads as an unclean stop: the server would then check the whole file at start
  insert.finalize()
  await sealAll(sqlite, [...withTexts], end)
}

/** The hub's sealing job run once to the end, without its time budget or its pauses between blocks. */
async function sealAll(sqlite: Database, seqs: number[], now: number) {
  const quiet = () => {}
  const sealer = createSealer({
    blocks: createBlockStore(sqlite),
    devices: { seqs: () => seqs },
    writer: { takeWrittenSince: () => new Map() },
    clock: { now: () => now },
    logger: { debug: quiet, info: quiet, warn: quiet, error: quiet },
    pause: async () => {},
    budgetMs: Number.POSITIVE_INFINITY,
  })
  await sealer.run()
}
