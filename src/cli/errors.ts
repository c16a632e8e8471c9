/**
 * The errors a command prints as one line without a stack (exit 2). Their own small module:
 * `vigil` imports them before it knows the command, and the collector must not load the hub's
 * configuration or database code to recognise them.
 */

/** A bad option, environment variable or argument. */
export class ConfigError extends Error {}

/** A command could not start (data dir locked, database unreadable, …). */
export class StartupError extends Error {}
