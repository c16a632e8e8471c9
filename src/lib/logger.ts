export type LogLevel = 'debug' | 'info' | 'warn' | 'error'
export type LogFormat = 'json' | 'pretty'

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 }

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void
  info(msg: string, fields?: Record<string, unknown>): void
  warn(msg: string, fields?: Record<string, unknown>): void
  error(msg: string, fields?: Record<string, unknown>): void
}

/** Field names whose values must never reach a log line, whatever the caller passes. */
const SECRET_FIELD = /pass(word)?|secret|token|api[_-]?key|authorization|cookie|signature/i

function redact(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(fields)) out[k] = SECRET_FIELD.test(k) ? '[redacted]' : v
  return out
}

export function createLogger(opts: { level: LogLevel; format: LogFormat; write?: (line: string) => void }): Logger {
  const write = opts.write ?? ((line: string) => process.stdout.write(`${line}\n`))
  const min = order[opts.level]
  const emit = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (order[level] < min) return
    const safe = fields ? redact(fields) : undefined
    if (opts.format === 'json') {
      write(JSON.stringify({ time: new Date().toISOString(), level, msg, ...safe }))
    } else {
      const extra = safe
        ? ' ' +
          Object.entries(safe)
            .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
            .join(' ')
        : ''
      write(`${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} ${msg}${extra}`)
    }
  }
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
  }
}

/** A logger that keeps its lines, for tests that assert what was (and was not) logged. */
export function memoryLogger(level: LogLevel = 'debug') {
  const lines: string[] = []
  const logger = createLogger({ level, format: 'json', write: (l) => lines.push(l) })
  return { logger, lines }
}
