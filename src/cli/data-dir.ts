import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { randomToken } from '../lib/crypto'
import { ConfigError, type Config } from '../config'

export const databasePath = (config: Config) => join(resolve(config.dataDir), 'vigil.db')

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
  writeFileSync(path, value + '\n', { mode: 0o600, flag: 'wx' })
  chmodSync(path, 0o600)
  return value
}
