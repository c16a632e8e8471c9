import type { SQL } from 'bun'
import { sha256Hex } from '../../lib/crypto'
import { num, type Raw } from '../../db/pg/rows'
import { hubName } from '../../jobs/claims.pg'
import { newSetupToken } from './users.signup'

/** The setup token a hub checks the operator's first registration against. */
export interface SetupToken {
  /** the token itself when this hub made it, to print on its console; null when another hub did */
  token: string | null
  /** its SHA-256, hex: what the registration is compared with */
  hash: string
  /** when the hub that made it started (ms since the epoch) */
  madeAt: number
  /** that hub (host and process) */
  hub: string
  /** agreed by the hubs of one PostgreSQL (kept across restarts until the operator exists); false: this hub's alone */
  shared: boolean
}

/**
 * The setup token of a hub starting at `now`. On SQLite a new one each start (one hub, and a token
 * found in an old log is useless). On PostgreSQL the hubs of one database agree on one: the first
 * hub to start stores its hash (setup_tokens, src/db/pg/setup-token.table.ts) and the others read
 * it, so the operator's first registration works on whichever hub a proxy sends it to. The
 * token itself never leaves the hub that made it, except on its console.
 */
export async function setupTokenFor(engine: { pg: SQL | null }, now: number, hub: string = hubName()): Promise<SetupToken> {
  const token = newSetupToken()
  const hash = sha256Hex(token)
  if (!engine.pg) return { token, hash, madeAt: now, hub, shared: false }
  const sql = engine.pg
  const made = (await sql`INSERT INTO setup_tokens (slot, hash, made_at, hub) VALUES ('operator', ${hash}, ${now}, ${hub})
    ON CONFLICT (slot) DO NOTHING RETURNING hash`) as Raw[]
  if (made.length > 0) return { token, hash, madeAt: now, hub, shared: true }
  const [row] = (await sql`SELECT hash, made_at, hub FROM setup_tokens WHERE slot = 'operator'`) as Raw[]
  return { token: null, hash: String(row!.hash), madeAt: num(row!.made_at), hub: String(row!.hub), shared: true }
}

/** The hash the registration is compared with: of a token given in clear (tests, a SQLite hub) or agreed on. */
export const setupTokenHashOf = (setup: SetupToken | string | null | undefined): string | null =>
  setup == null ? null : typeof setup === 'string' ? sha256Hex(setup) : setup.hash

/**
 * What the hub says on its console while no operator exists: the token when it made it, else
 * which hub's log holds it. `when`: the condition under which a registration needs it.
 */
export function setupTokenNotice(setup: SetupToken, when: string): string {
  const lasts = setup.shared
    ? 'every hub on this database takes it, across restarts, until the operator exists'
    : 'it works until the operator exists, a restart makes a new one'
  const how = '"vigil admin create" makes the operator without it'
  if (setup.token !== null)
    return `no operator yet: the first registration needs the setup token ${setup.token} (header x-setup-token)${when}; ${lasts}, and ${how}`
  const at = new Date(setup.madeAt).toISOString()
  return `no operator yet: the first registration needs the setup token (header x-setup-token)${when}; the setup token was logged by the hub that started first (${setup.hub}) at ${at}; ${lasts}, and ${how}`
}
