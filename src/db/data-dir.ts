import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { randomToken } from '../lib/crypto'
import { ConfigError, type Config } from '../config'

export const databasePath = (config: Config) => join(resolve(config.dataDir), 'vigil.db')

/**
 * The secrets the data dir keeps when the environment does not set them, with the variable that
 * replaces each. A backup carries these files; a restore puts them back.
 */
export const DATA_DIR_SECRETS = [
  { file: 'jwt-secret', env: 'VIGIL_JWT_SECRET', fromEnv: (c: Config) => c.jwtSecret !== null },
  { file: 'secret.key', env: 'VIGIL_SECRET_KEY', fromEnv: (c: Config) => c.secretKey !== null },
] as const

/** The data dir's secret files that exist now, name and content (as written: restore puts back the same bytes). */
export function readDataDirSecrets(dataDir: string): { name: string; value: string }[] {
  return DATA_DIR_SECRETS.map((s) => join(resolve(dataDir), s.file))
    .filter((path) => existsSync(path))
    .map((path) => ({ name: basename(path), value: readFileSync(path, 'utf8') }))
}

/** The variables set in the environment instead of a data-dir file: a backup cannot hold them. */
export const secretsFromEnv = (config: Config) => DATA_DIR_SECRETS.filter((s) => s.fromEnv(config)).map((s) => s.env)

export function ensureDataDir(config: Config): string {
  const dir = resolve(config.dataDir)
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
  } catch (err) {
    throw new ConfigError(`cannot create the data directory ${dir}: ${(err as Error).message}`)
  }
  return dir
}

/**
 * A secret kept in the data dir with mode 0600, generated on first use. Used for the JWT
 * signing key when VIGIL_JWT_SECRET is not set, so tokens survive restarts.
 */
export function dataDirSecret(config: Config, name: string): string {
  const path = join(ensureDataDir(config), name)
  if (existsSync(path)) {
    const value = readFileSync(path, 'utf8').trim()
    if (Buffer.byteLength(value) < 32) throw new ConfigError(`${path} holds a secret shorter than 32 bytes; delete it to generate a new one`)
    return value
  }
  const value = randomToken(48)
  writeFileSync(path, `${value}\n`, { mode: 0o600, flag: 'wx' })
  chmodSync(path, 0o600)
  return value
}
