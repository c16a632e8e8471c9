import { createApp } from '../app'
import type { Config } from '../config'
import { isLoopbackHost, listenerExposed, proxyTrustWarning, siteUrlWarning } from '../config.exposure'
import { systemClock } from '../lib/clock'
import { createLogger, type Logger } from '../lib/logger'
import { systemTimers, type Timers } from '../lib/timers'
import { startScheduler, systemWallTime } from '../jobs/scheduler'
import { loopProbe } from '../jobs/loop-probe'
import { VERSION } from '../version'
import { setupPending } from '../modules/users/users.signup'
import { setupTokenFor, setupTokenNotice } from '../modules/users/users.setup-token'
import { dataDirSecret } from '../db/data-dir'
import { deriveSecretKey } from '../lib/secret-box'
import { openServeEngine } from './serve.engine'
import { StartupError } from './errors'
import { portHeldMessage, probePort } from './port-holder'
import { afterStartUp, shrink, startMemoryReducer } from '../lib/memory'
import { pageOutExecutable } from '../lib/page-out'
import { trace } from '../lib/request-trace'
import { linuxThreads, watchCompilers } from '../lib/compiler-threads'
import { publishSelf } from '../modules/versions/versions.self'

/** a quiet spell this long after requests lets the memory reducer give memory back */
const QUIET_MS = 5_000
/** ...once this many requests came since it last did (a burst, not a few collectors' samples) */
const SHRINK_AFTER_REQUESTS = 100
/** how long after start the hub publishes itself as the collectors' version */
const SELF_PUBLISH_AFTER_MS = 30_000
/** how often, while requests come, the JIT's compiler threads are looked for to be given the lowest priority */
const COMPILERS_LOOK_MS = 250

/** true in dist/vigil, false under `bun src/main.ts` */
const compiled = Bun.main.startsWith('/$bunfs/')

/** Runs the service until SIGTERM/SIGINT, then drains in-flight requests and closes the database. */
export async function serve(config: Config): Promise<void> {
  const logger = createLogger({ level: config.logLevel, format: config.logFormat })
  const clock = systemClock
  // before anything is created: a port another program holds must not leave a new database behind
  if (config.port !== 0 && !probePort(config.host, config.port)) throw new StartupError(portHeldMessage(config.host, config.port))
  const engine = await openServeEngine(config, logger, clock)
  const jwtSecret = config.jwtSecret ?? dataDirSecret(config, 'jwt-secret')
  // provider API keys at rest: VIGIL_SECRET_KEY, else a key file kept (0600) in the data dir,
  // made now (the data dir must be writable at start) and derived into a key on first use
  const secretFile = config.secretKey ? undefined : dataDirSecret(config, 'secret.key')
  const secretKey = secretFile === undefined ? undefined : () => deriveSecretKey(secretFile)
  // Whoever registers first becomes the operator: while nobody has, a registration that may come
  // from another machine takes this token (users.signup.ts decides per request). Made whatever
  // the address: behind a proxy on this machine, strangers arrive from loopback too. On
  // PostgreSQL every hub of the database takes the one the first hub made (users.setup-token.ts).
  const setupToken = await setupTokenFor({ pg: engine.pg }, clock.now())
  const { app, jobs, modules, requestsAdmitted, limiter } = createApp({
    config,
    db: engine.db,
    pg: engine.pg,
    peers: engine.peers,
    bulkPause: engine.bulkPause,
    clock,
    logger,
    jwtSecret,
    secretKey,
    setupToken,
  })
  const tls = config.tlsCert && config.tlsKey ? { cert: Bun.file(config.tlsCert), key: Bun.file(config.tlsKey) } : undefined

  await listenOrExplain(
    () =>
      app.listen({
        port: config.port,
        hostname: config.host,
        tls,
        // Bun's default (SO_REUSEPORT) let a second instance bind the same port and take a share of the requests
        reusePort: false,
        // No limit in Bun: the app refuses a declared length over maxBodyBytes before reading and
        // stops reading a chunked body at it (http/body.ts), with the documented 413 and headers.
        // Bun's own limit answered a bare 413 with neither; it never buffers a body the app leaves.
        maxRequestBodySize: Number.MAX_SAFE_INTEGER,
      }),
    config,
    () => engine.close(() => {}),
  )
  // on SQLite every scheduled run is this hub's; on PostgreSQL each is claimed once across the hubs
  const scheduler = startScheduler(jobs, logger, systemWallTime, engine.claims, config.logLevel === 'debug' ? loopProbe(systemTimers) : undefined)
  // samples an hour old (and all of a database from an earlier release) start to move into their
  // long-lived form now. Not on PostgreSQL: a run outside the claims would race the one another hub
  // claimed; the next scheduled slot, claimed once, comes within a minute
  if (engine.name === 'sqlite') void scheduler.trigger('metrics.seal')
  // notification deliveries a previous run left queued go out now
  modules.channelsWorker.start()
  // outbound webhooks: what a previous run left pending goes out now
  modules.webhookWorker.start()
  // service checks the hub runs, each on its interval
  modules.checkScheduler.start()
  // the SQLite file's checkpointer; nothing on PostgreSQL
  engine.start(() => modules.metrics.writer.hold())
  // the compiled executable's pages too; from source the file mapped would be Bun itself
  const handBack = (after: string) => {
    if (compiled) void handBackExecutable(logger, after)
  }
  // once the event loop has run start-up through: the JIT's normal policy (start-up ran under a
  // reluctant one, lib/memory.ts) and memory given back; after every burst of requests too
  setTimeout(() => {
    const t = trace.now()
    afterStartUp()
    trace.event('shrink after start-up', t)
    logger.debug('start-up over: the JIT compiles as usual, memory given back')
    handBack('start-up')
  }, 500).unref()
  const reducer = startMemoryReducer({
    requests: requestsAdmitted,
    quietMs: QUIET_MS,
    minRequests: SHRINK_AFTER_REQUESTS,
    shrink: () => {
      const t = trace.now()
      shrink()
      trace.event('shrink after a burst', t)
    },
    onShrink: () => {
      logger.debug('quiet: memory given back')
      handBack('a burst of requests')
    },
  })
  // the JIT's compiler threads at the lowest priority, so requests get the core first (lib/compiler-threads.ts)
  const yieldCompilers = watchCompilers({ requests: requestsAdmitted, port: linuxThreads, timers: systemTimers, everyMs: COMPILERS_LOOK_MS })
  const scheme = tls ? 'https' : 'http'
  const port = app.server?.port ?? config.port
  logger.info('vigil listening', {
    version: VERSION,
    url: `${scheme}://${config.host}:${port}`,
    database: engine.name,
    transport: tls ? 'https (native TLS)' : 'plain http',
    mode: config.instance.mode,
    signup: modules.users.signup.policy,
    jobs: scheduler.names(),
  })
  // Only the compiled executable is a collector release (under `bun src/main.ts` it would be Bun).
  // Later, not during start-up: hashing the executable reads ~120 MB, which a first start after
  // an upgrade would otherwise pay before it answers.
  if (config.publishSelf && compiled) {
    publishSelfLater(
      () => publishSelf(modules.versions, { version: VERSION, execPath: process.execPath, arch: process.arch, dataDir: config.dataDir }, logger),
      {
        timers: systemTimers,
        afterMs: SELF_PUBLISH_AFTER_MS,
        shrink: () => {
          shrink()
          handBack('the self-publish')
        },
        logger,
      },
    )
  }
  if (await setupPending(modules.users)) {
    // in the message: the logger redacts fields named like secrets, and this one is meant to be read
    const when = listenerExposed(config)
      ? ''
      : ' when it comes through a proxy (a Forwarded, X-Forwarded-For or X-Real-IP header; a request straight to this loopback address needs none)'
    logger.warn(setupTokenNotice(setupToken, when), {
      register: `POST ${config.siteUrl}/v1/auth/register`,
    })
  }
  const siteWarning = siteUrlWarning(config)
  if (siteWarning) logger.warn(siteWarning, { site_url: config.siteUrl, host: config.host, trust_proxy: config.trustProxy })
  const proxyWarning = proxyTrustWarning(config)
  if (proxyWarning) logger.warn(proxyWarning, { host: config.host })
  if (!tls && !isLoopbackHost(config.host)) {
    logger.warn('serving plain HTTP on a non-loopback address: put a TLS-terminating proxy in front, or set VIGIL_TLS_CERT and VIGIL_TLS_KEY', {
      host: config.host,
    })
  }

  await new Promise<void>((resolve) => {
    let stopping = false
    const stop = async (signal: string) => {
      if (stopping) return
      stopping = true
      logger.info('shutting down', { signal })
      await app.stop(false) // stop accepting, let in-flight requests finish
      await scheduler.stop()
      await modules.channelsWorker.stop()
      await modules.webhookWorker.stop()
      modules.checkScheduler.stop()
      reducer.stop()
      yieldCompilers()
      await limiter.close?.().catch((err: Error) => logger.warn('rate limit store did not close cleanly', { error: err.message }))
      await modules.devices.directory.stop?.().catch((err: Error) => logger.warn('device last reports not written', { error: err.message }))
      // last: the workers and jobs above may still have written while stopping
      await engine.close((what, err) => logger.warn(what, { error: err.message }))
      trace.flush()
      logger.info('stopped')
      resolve()
    }
    process.once('SIGTERM', () => void stop('SIGTERM'))
    process.once('SIGINT', () => void stop('SIGINT'))
  })
}

/**
 * Publishes this hub as the collectors' version after `afterMs`, then gives memory back at
 * once: the hash streams the whole executable (~120 MB) through memory, and an idle hub held
 * ~15 MB more for half a minute or so after it, until collections and the allocator let go.
 */
export function publishSelfLater(publish: () => Promise<unknown>, o: { timers: Timers; afterMs: number; shrink: () => void; logger: Logger }): void {
  o.timers.after(o.afterMs, () => {
    publish()
      .catch((err: Error) => o.logger.warn('could not publish this hub as the collector version', { error: err.message }))
      .finally(o.shrink)
  })
}

/**
 * Gives the kernel back the pages of the executable the hub touched (src/lib/page-out.ts): after
 * start-up, about half of an idle hub's RSS (docs/performance.md, "An idle hub's memory"); after
 * the self-publish and after a burst of requests, what they ran. What runs next is mapped again
 * as it runs; under steady traffic the memory reducer never gets there.
 */
async function handBackExecutable(logger: Logger, after: string): Promise<void> {
  try {
    const t = trace.now()
    const done = await pageOutExecutable()
    trace.event(`executable handed back after ${after}`, t)
    if (!done) return logger.debug('pages of the executable kept: madvise is not available here', { after })
    logger.debug('pages of the executable handed back to the kernel', {
      after,
      ranges: done.ranges,
      file_backed_mb_before: done.fileBackedMb.before,
      file_backed_mb_after: done.fileBackedMb.after,
    })
  } catch (err) {
    logger.debug('pages of the executable could not be handed back', { after, error: (err as Error).message })
  }
}

/** A port another program holds is an operator's mistake: one line and exit 2, not a stack. */
async function listenOrExplain(listen: () => void, config: Config, undo: () => Promise<void>) {
  try {
    listen()
  } catch (err) {
    await undo()
    const e = err as NodeJS.ErrnoException
    if (e.code === 'EADDRINUSE') throw new StartupError(portHeldMessage(config.host, config.port))
    throw new StartupError(`cannot listen on ${config.host}:${config.port}: ${e.message}`)
  }
}
