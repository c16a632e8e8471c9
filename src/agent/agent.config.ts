import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/** A bad flag or environment value: the command prints it and exits 2. */
export class AgentConfigError extends Error {}

export interface AgentConfig {
  hub: string | null
  key: string | null
  intervalMs: number
  stateDir: string
  once: boolean
  /** checks the hub for new versions and installs them (--no-update, VIGIL_AGENT_UPDATE=false) */
  update: boolean
  logLevel: 'debug' | 'info' | 'warn' | 'error'
  /** the filesystem root the readers read under; only tests set it */
  root: string
  /** globs on container names that are never reported */
  excludeContainers: string[]
  /** container labels (names or globs) sent with each container; none by default */
  containerLabels: string[]
}

export const DEFAULT_STATE_DIR = '/var/lib/vigil-agent'

/** flag → environment variable; flags win over the environment, which wins over the defaults */
const OPTIONS: Record<string, string> = {
  hub: 'VIGIL_AGENT_HUB',
  key: 'VIGIL_AGENT_KEY',
  'key-file': 'VIGIL_AGENT_KEY_FILE',
  interval: 'VIGIL_AGENT_INTERVAL',
  'state-dir': 'VIGIL_AGENT_STATE_DIR',
  'log-level': 'VIGIL_AGENT_LOG_LEVEL',
  'exclude-containers': 'VIGIL_AGENT_EXCLUDE_CONTAINERS',
  'container-labels': 'VIGIL_AGENT_CONTAINER_LABELS',
}

/** A comma-separated list of globs, within bounds (a typo should not turn into a megabyte of patterns). */
function globList(name: string, raw: string | undefined): string[] {
  const items = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  if (items.length > 50 || items.some((s) => s.length > 200 || !/^[\w.*?/:@-]+$/.test(s)))
    throw new AgentConfigError(`--${name} takes up to 50 comma-separated names or globs (letters, digits, . _ - / : @ * ?), each up to 200 characters`)
  return items
}

function parseArgs(args: string[]): { values: Record<string, string>; once: boolean; noUpdate: boolean } {
  const values: Record<string, string> = {}
  let once = false
  let noUpdate = false
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === '--once') {
      once = true
      continue
    }
    if (arg === '--no-update') {
      noUpdate = true
      continue
    }
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(arg)
    if (!m || !(m[1]! in OPTIONS)) throw new AgentConfigError(`unknown option "${arg}"; run "vigil agent --help"`)
    const value = m[2] ?? args[++i]
    if (value === undefined) throw new AgentConfigError(`--${m[1]} needs a value`)
    values[m[1]!] = value
  }
  return { values, once, noUpdate }
}

/**
 * The agent's configuration from flags and VIGIL_AGENT_* variables. The key may come from
 * --key, VIGIL_AGENT_KEY, a file (--key-file) or, by default, `key` in the state dir, where an
 * installer keeps it 0600: a key on the command line is visible to every user in `ps`.
 */
export function loadAgentConfig(env: Record<string, string | undefined>, args: string[]): AgentConfig {
  const { values, once, noUpdate } = parseArgs(args)
  const get = (name: string) => values[name] ?? env[OPTIONS[name]!] ?? undefined
  const stateDir = get('state-dir') || DEFAULT_STATE_DIR
  const hubRaw = get('hub')
  let hub: string | null = null
  if (hubRaw) {
    let url: URL
    try {
      url = new URL(hubRaw)
    } catch {
      throw new AgentConfigError(`--hub must be an http(s) URL such as http://hub:8080, got "${hubRaw}"`)
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AgentConfigError(`--hub must be an http(s) URL, got "${hubRaw}"`)
    hub = url.origin + url.pathname.replace(/\/+$/, '')
  }
  const intervalRaw = get('interval') ?? '10'
  const interval = Number(intervalRaw)
  if (!/^\d+(\.\d+)?$/.test(intervalRaw) || interval < 1 || interval > 3600)
    throw new AgentConfigError(`--interval must be a number of seconds from 1 to 3600, got "${intervalRaw}"`)
  const updateRaw = (env.VIGIL_AGENT_UPDATE ?? 'true').toLowerCase()
  if (!['true', 'false', '1', '0'].includes(updateRaw)) throw new AgentConfigError(`VIGIL_AGENT_UPDATE must be true or false, got "${env.VIGIL_AGENT_UPDATE}"`)
  const update = !noUpdate && (updateRaw === 'true' || updateRaw === '1')
  const level = get('log-level') ?? 'info'
  if (!['debug', 'info', 'warn', 'error'].includes(level)) throw new AgentConfigError(`--log-level must be one of debug, info, warn, error, got "${level}"`)
  // flags before the environment, as for every option: --key, --key-file, then VIGIL_AGENT_KEY,
  // VIGIL_AGENT_KEY_FILE, then the state dir's file
  const fromFile = (file: string | undefined) => (file ? readKey(file, true) : null)
  const fromEnv = (name: string) => env[OPTIONS[name]!] || undefined
  let key = values.key || fromFile(values['key-file']) || fromEnv('key') || fromFile(fromEnv('key-file')) || null
  if (!key) key = readKey(join(stateDir, 'key'), false)
  if (!once && !hub) throw new AgentConfigError("the agent needs the hub's URL: --hub URL or VIGIL_AGENT_HUB")
  if (!once && !key) throw new AgentConfigError('the agent needs an API key: --key, VIGIL_AGENT_KEY, --key-file or a "key" file in the state dir')
  return {
    hub,
    key,
    intervalMs: interval * 1000,
    stateDir,
    once,
    update,
    logLevel: level as AgentConfig['logLevel'],
    root: env.VIGIL_AGENT_ROOT || '/',
    excludeContainers: globList('exclude-containers', get('exclude-containers')),
    containerLabels: globList('container-labels', get('container-labels')),
  }
}

function readKey(path: string, required: boolean): string | null {
  try {
    return readFileSync(path, 'utf8').trim() || null
  } catch (err) {
    if (required) throw new AgentConfigError(`cannot read the key file ${path}: ${(err as Error).message}`)
    return null
  }
}
