import { chownSync, readdirSync, statSync } from 'node:fs'
import { backupOnPostgres } from '../db/pg/backup-refusal'
import { join, resolve } from 'node:path'
import type { Config } from '../config'
import { BackupError, fileStamp, writeBackup } from '../db/backup'
import { restoreBackup } from '../db/restore'
import { systemClock } from '../lib/clock'
import { VERSION } from '../version'
import { readDataDirSecrets, secretsFromEnv } from '../db/data-dir'
import { lockForService, requireDatabase } from './open'
import { StartupError } from './errors'

/** `vigil backup --out FILE`: the database and the data dir's secrets in one file, safe while the service runs. */
export function backupCommand(config: Config, out: string | undefined, force = false): number {
  if (config.database.url !== null) throw new StartupError(backupOnPostgres(config.database.url, 'backup'))
  if (!out) throw new StartupError('backup needs --out FILE, e.g. vigil backup --out /var/backups/vigil.db')
  const source = requireDatabase(config)
  const secrets = readDataDirSecrets(config.dataDir)
  try {
    writeBackup({ source, target: out, force, secrets, version: VERSION, now: systemClock.now() })
  } catch (err) {
    if (err instanceof BackupError) throw new StartupError(err.message)
    throw err
  }
  console.log(`backup written to ${resolve(out)} (database and ${secrets.length ? secrets.map((s) => s.name).join(', ') : 'no secret files'})`)
  for (const env of secretsFromEnv(config)) {
    console.log(`note: ${env} is set in the environment, so it is not in the backup; keep it with your configuration`)
  }
  return 0
}

/**
 * `vigil restore FILE`: checks the file, then, with the service stopped, moves the current
 * database and secrets aside and puts the backup's in place.
 */
export function restoreCommand(config: Config, file: string | undefined): number {
  if (config.database.url !== null) throw new StartupError(backupOnPostgres(config.database.url, 'restore'))
  if (!file) throw new StartupError('restore needs the backup file, e.g. vigil restore /var/backups/vigil.db')
  const now = systemClock.now()
  const lock = lockForService(config, now, 'stop the service first (e.g. systemctl stop vigil), then run the restore again')
  const dataDir = resolve(config.dataDir)
  let result: ReturnType<typeof restoreBackup>
  try {
    result = restoreBackup(resolve(file), dataDir, `before-restore-${fileStamp(now)}`)
    keepOwner(dataDir, ['vigil.db', ...result.info.secrets.map((s) => s.name), ...(result.asideDir ? [result.asideDir] : [])])
  } catch (err) {
    if (err instanceof BackupError) throw new StartupError(err.message)
    throw err
  } finally {
    lock.release()
  }
  const { info, asideDir, movedAside } = result
  const names = info.secrets.map((s) => s.name)
  console.log(`restored ${resolve(file)} (written by vigil ${info.version} at ${info.createdAt}) into ${dataDir}`)
  console.log(`  database: vigil.db`)
  console.log(`  secrets:  ${names.length ? names.join(', ') : 'none in the backup'}`)
  if (asideDir) console.log(`the previous ${movedAside.join(', ')} are kept in ${asideDir} (delete that folder once the restored instance looks right)`)
  for (const missing of ['jwt-secret', 'secret.key'].filter((n) => !names.includes(n))) {
    const env = missing === 'jwt-secret' ? 'VIGIL_JWT_SECRET' : 'VIGIL_SECRET_KEY'
    const loss = missing === 'jwt-secret' ? 'everyone signs in again' : 'stored provider API keys cannot be read and must be saved again'
    if (!secretsFromEnv(config).includes(env))
      console.log(`note: the backup holds no ${missing}; set ${env} to the value the backed-up instance used, or ${loss}`)
  }
  console.log('next: start the service (vigil serve, or systemctl start vigil); it applies any migrations this version adds')
  return 0
}

/**
 * Run as root on a service's data dir (sudo vigil restore), the new files would be root's and
 * the service user could not open them: they take the data dir's owner.
 */
function keepOwner(dataDir: string, names: string[]) {
  if (process.getuid?.() !== 0) return
  const { uid, gid } = statSync(dataDir)
  if (uid === 0) return
  for (const name of names) {
    const path = join(dataDir, name)
    chownSync(path, uid, gid)
    if (statSync(path).isDirectory()) for (const inner of readdirSync(path)) chownSync(join(path, inner), uid, gid)
  }
}
