/**
 * What a command raises when it cannot start, printed as one line without a stack (exit 2).
 * Its own small module: `vigil` recognises it before it knows the command (by name, see
 * main.ts), and the collector must not load the hub's code to do so. A bad setting is the
 * configuration's own ConfigError (src/config.ts).
 */

/** A command could not start (data dir locked, database unreadable, port taken, …). */
export class StartupError extends Error {
  override name = 'StartupError'
}
