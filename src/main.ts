#!/usr/bin/env bun
import type { Config } from './config'
import type { InstallOptions } from './cli/install'
import { VERSION } from './version'
import { AGENT_HELP } from './agent/agent.help'

const SERVER_FLAGS =
  '  --port N          VIGIL_PORT (8080)\n  --host ADDR       VIGIL_HOST (0.0.0.0)\n  --data-dir DIR    VIGIL_DATA_DIR (./data)\n  --site-url URL    VIGIL_SITE_URL (http://localhost:8080)\n  --tls-cert FILE   VIGIL_TLS_CERT\n  --tls-key FILE    VIGIL_TLS_KEY'

const HELP: Record<string, string> = {
  main: `vigil ${VERSION} — self-hosted infrastructure monitoring

Usage: vigil [command] [options]

Commands:
  serve              run the service (the default)
  migrate [--status] apply pending database migrations (SQLite or PostgreSQL), or list them
  backup --out FILE  write the database and the data dir's secrets to one file (safe while serving)
  restore FILE       put a backup back in place (with the service stopped)
  copy --to URL      copy the instance, everything in it, into a PostgreSQL database (service stopped)
  install            install the systemd service (as root); uninstall removes it
  healthcheck        exit 0 if the local service answers /health, else 1
  admin              manage operator accounts (create, set-role, reset-password, list)
  agent              run the collector on this machine and report to a hub (Linux)
  version            print the version (also --version, -v)
  help [command]     this list, or a command's options (also --help)

Run "vigil <command> --help" for a command's options. Every option also has an environment
variable; flags win over the environment, which wins over the defaults.`,
  serve: `Usage: vigil serve [options]\n\nRuns the HTTP service and its scheduled jobs until SIGTERM or SIGINT.\n\n${SERVER_FLAGS}`,
  migrate: `Usage: vigil migrate [--status] [--data-dir DIR]

Applies pending migrations and names each one applied (serve applies them at start too), or with
--status (also "vigil migrate status") lists each migration applied or pending; read-only.

With VIGIL_DATABASE_URL=postgres://… it migrates that PostgreSQL database, under a lock that
makes hubs and commands starting together apply each migration once. Without it, the data dir's
SQLite database: applying refuses while the service runs on it (stop it first).`,
  backup: `Usage: vigil backup --out FILE [--force] [--data-dir DIR]

Writes one file with everything needed to come back: a consistent copy of the database (VACUUM
INTO, safe while the service runs) and the data dir's secrets (jwt-secret, secret.key) in its
vigil_backup table. Secrets set as VIGIL_JWT_SECRET or VIGIL_SECRET_KEY are not in it: keep them
with your configuration. The file is mode 0600 (it holds password hashes and secrets). An
existing FILE is kept unless --force, which replaces it only once the new copy is complete.
Scheduled backups: VIGIL_BACKUP_SCHEDULE, VIGIL_BACKUP_DIR, VIGIL_BACKUP_KEEP (see docs/operations.md).`,
  restore: `Usage: vigil restore FILE [--data-dir DIR]

Checks FILE (a backup "vigil backup" wrote, sound, not from a newer vigil), then moves the data
dir's database and secrets aside into before-restore-<time>/ and puts the backup's in place.
Refuses while the service runs: stop it first. Signed-in users stay signed in, and stored
provider keys stay readable, because the secrets come back with the database.`,
  copy: `Usage: vigil copy --to postgres://USER:PASSWORD@HOST:5432/DATABASE [--replace] [--no-verify] [--data-dir DIR]

Copies every table of the data dir's SQLite database into the PostgreSQL database, migrated
first, in one transaction there: it lands whole or not at all. Refuses while the service runs
(stop it first), and a target that already holds data unless --replace, which empties its
tables in the same transaction. Each table's rows are read back and their count and checksum
compared before the copy commits (--no-verify skips that). Keys, sessions and secrets are
copied byte for byte: carry the data dir's jwt-secret and secret.key (or the same
VIGIL_JWT_SECRET and VIGIL_SECRET_KEY) over to the hubs that serve the copy. Without --to, the
database VIGIL_DATABASE_URL names (which keeps the password out of the process list).`,
  healthcheck: `Usage: vigil healthcheck [--port N] [--host ADDR]\n\nExits 0 when GET /health on the local service answers 200 within 3 s. Otherwise exits 1 and\nsays on stderr which address it tried: give it the service's own VIGIL_PORT (and VIGIL_HOST,\nVIGIL_TLS_CERT) or --port and --host.`,
  install: `Usage: vigil install [--now] [--unit-dir DIR] [--env-file FILE] [--bin FILE] [--user NAME]

As root: installs this executable as /usr/local/bin/vigil (--bin), writes a hardened systemd
unit /etc/systemd/system/vigil.service (--unit-dir) that runs it as the system user vigil
(--user, created when missing) with its data in /var/lib/vigil, and a settings file
/etc/vigil/vigil.env (--env-file; an existing one is kept). Then prints the commands that
start it; --now runs them (systemctl daemon-reload, systemctl enable --now vigil).`,
  uninstall: `Usage: vigil uninstall [--now] [--unit-dir DIR]

As root: removes the systemd unit (--now also stops and disables the service first). The data
in /var/lib/vigil, the settings, the executable and the user are kept.`,
  version: `Usage: vigil version\n\nPrints the version.`,
  agent: AGENT_HELP,
  admin: `Usage: vigil admin <subcommand> [options] [--data-dir DIR]

Operator (instance admin) accounts, straight on the database; safe while the service runs.

  create --email E --password-stdin          a new operator account with its own client
  set-role --email E --role admin|user       make an existing user an operator, or not
  reset-password --email E --password-stdin  new password (8 to 128 characters); signs out all its sessions
  list                                       print the operators

The password is read from standard input (one trailing newline is dropped), e.g.
  printf '%s' "$PASSWORD" | vigil admin create --email ops@example.com --password-stdin`,
}

/** Splits `--out FILE` (a command's own option) from the shared config flags. */
function takeOption(args: string[], name: string): string | undefined {
  const i = args.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`))
  if (i === -1) return undefined
  const arg = args[i]!
  const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[i + 1]
  args.splice(i, arg.includes('=') ? 1 : 2)
  return value
}

/** Removes `--name` from the arguments; whether it was there. */
function takeFlag(args: string[], name: string): boolean {
  const i = args.indexOf(`--${name}`)
  if (i !== -1) args.splice(i, 1)
  return i !== -1
}

export async function main(argv: string[]): Promise<number> {
  const args = [...argv]
  // `vigil --help` and `vigil --version` are about the program, not about the default command
  if (args[0] === '--version' || args[0] === '-v') return main(['version'])
  if (args[0] === '--help' || args[0] === '-h') return main(['help'])
  const command = args[0] && !args[0].startsWith('-') ? args.shift()! : 'serve'
  if (command === 'help') {
    console.log(HELP[args[0] ?? 'main'] ?? HELP.main)
    return 0
  }
  if (args.includes('--help') || args.includes('-h')) {
    console.log(HELP[command] ?? HELP.main)
    return 0
  }
  try {
    return await run(command, args)
  } catch (err) {
    // a mistyped option: say where the right ones are listed
    if (isConfigError(err) && /^(unknown option|unexpected argument|--\S+ needs a value)/.test(err.message) && !err.message.includes('--help')) {
      err.message = `${err.message}; run "vigil ${command} --help" for its options`
    }
    throw err
  }
}

/**
 * The errors a command reports as one line (exit 2), told by name: ConfigError lives beside the
 * configuration (src/config.ts) and StartupError in src/cli/errors.ts, and importing either class
 * here would load the hub's modules into the collector too.
 */
const isConfigError = (err: unknown): err is Error => err instanceof Error && err.name === 'ConfigError'
const isOneLineError = (err: unknown): err is Error => isConfigError(err) || (err instanceof Error && err.name === 'StartupError')
const configError = async (message: string) => new (await import('./config')).ConfigError(message)

/**
 * Commands load their modules when run, and the build puts each in chunks of its own: `vigil
 * agent` then never loads the hub's module graph (Elysia, drizzle, the migrations, even the
 * hub's configuration), about 8 MB of resident memory on a collector. Keep this file's static
 * imports as small as they are.
 */
const commands = () => import('./cli/commands')
const config = async (args: string[]): Promise<Config> => (await import('./config')).loadConfig(process.env, args)
const backups = () => import('./cli/backup')
const installs = () => import('./cli/install')

async function run(command: string, args: string[]): Promise<number> {
  switch (command) {
    case 'version':
      console.log(VERSION)
      return 0
    case 'serve':
      await (await import('./cli/serve')).serve(await config(args))
      return 0
    case 'migrate': {
      let sub = args[0] && !args[0].startsWith('-') ? args.shift() : undefined
      const statusAt = args.indexOf('--status')
      if (statusAt !== -1) {
        args.splice(statusAt, 1)
        sub ??= 'status'
      }
      return (await import('./cli/migrate')).migrate(await config(args), sub)
    }
    case 'backup': {
      const out = takeOption(args, 'out')
      const forceAt = args.indexOf('--force')
      if (forceAt !== -1) args.splice(forceAt, 1)
      return (await backups()).backupCommand(await config(args), out, forceAt !== -1)
    }
    case 'restore': {
      const file = args[0] && !args[0].startsWith('-') ? args.shift() : undefined
      return (await backups()).restoreCommand(await config(args), file)
    }
    case 'copy': {
      const to = takeOption(args, 'to')
      const flags = { replace: takeFlag(args, 'replace'), verify: !takeFlag(args, 'no-verify') }
      return (await import('./cli/copy')).copyCommand(await config(args), { to, ...flags })
    }
    case 'install':
    case 'uninstall': {
      const { INSTALL_DEFAULTS, installCommand, systemIo, uninstallCommand } = await installs()
      const o: InstallOptions = {
        unitDir: takeOption(args, 'unit-dir') ?? INSTALL_DEFAULTS.unitDir,
        envFile: takeOption(args, 'env-file') ?? INSTALL_DEFAULTS.envFile,
        bin: takeOption(args, 'bin') ?? INSTALL_DEFAULTS.bin,
        user: takeOption(args, 'user') ?? INSTALL_DEFAULTS.user,
        now: args.includes('--now'),
      }
      const rest = args.filter((a) => a !== '--now')
      if (rest.length) throw await configError(`unexpected argument "${rest[0]}"; run "vigil ${command} --help"`)
      return command === 'install' ? installCommand(o, systemIo) : uninstallCommand(o, systemIo)
    }
    case 'healthcheck':
      return (await commands()).healthcheckCommand(await config(args))
    case 'admin': {
      const sub = args[0] && !args[0].startsWith('-') ? args.shift() : undefined
      const email = takeOption(args, 'email')
      const role = takeOption(args, 'role')
      const stdinAt = args.indexOf('--password-stdin')
      if (stdinAt !== -1) args.splice(stdinAt, 1)
      return (await import('./cli/admin')).adminCommand(await config(args), sub, { email, role, passwordStdin: stdinAt !== -1 })
    }
    case 'agent':
      // the JIT's normal policy: the executable starts every command with the hub's start-up one (src/lib/memory.ts)
      Bun.unsafe.setJITPolicy(1)
      // loaded on demand: the collector must not pay for the hub's module graph
      return (await import('./agent/agent.command')).agentCommand(args)
    default:
      throw await configError(`unknown command "${command}"; run "vigil --help"`)
  }
}

if (import.meta.main) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      if (isOneLineError(err)) {
        console.error(`vigil: ${err.message}`)
        process.exit(2)
      }
      console.error(`vigil: unexpected error: ${(err as Error).message}`)
      process.exit(1)
    },
  )
}
