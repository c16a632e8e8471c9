import { AppError, notFound } from '../../http/errors'
import { ShoutrrrError, type KindSpec, type Settings } from './channels.kind-spec'
import { KINDS, kindOfScheme } from './channels.kind-catalogue'
import type { ChannelView, ShoutrrrImport } from './channels.model'
import { createChannel, kindOf, settingsOf, type ChannelsDeps } from './channels.service'

const SUPPORTED = [...new Set(Object.values(KINDS).map((k) => k.shoutrrr))].join(', ')
const invalid = (message: string) => new AppError('invalid_shoutrrr_url', message, 'url')

/** A Shoutrrr URL as a kind and its settings (not yet checked against the kind's fields). */
export function parseShoutrrr(raw: string): { kind: KindSpec; settings: Settings } {
  let u: URL
  try {
    u = new URL(raw.trim())
  } catch {
    throw invalid('not a URL: a Shoutrrr URL looks like ntfy://ntfy.sh/topic')
  }
  const kind = kindOfScheme(u.protocol)
  if (!kind) throw invalid(`${u.protocol.replace(/:$/, '')} is not a service Vigil sends to (it takes ${SUPPORTED})`)
  try {
    return { kind, settings: kind.fromShoutrrr(u) }
  } catch (err) {
    if (err instanceof ShoutrrrError) throw invalid(`${kind.shoutrrr}: ${err.message}`)
    throw invalid(`${kind.shoutrrr}: the URL cannot be read`)
  }
}

/** What the portal names an imported channel when the user gives no name. */
function defaultName(kind: KindSpec, s: Settings): string {
  const where = ['server', 'webhook_url', 'workflow_url', 'url'].map((f) => s[f]).find((v) => typeof v === 'string' && URL.canParse(v)) as string | undefined
  const host = where ? new URL(where).hostname : kind.id === 'email' ? String(s.host) : null
  return (host ? `${kind.name} (${host})` : kind.name).slice(0, 100)
}

/** A channel from a Shoutrrr URL, as POST /v1/channels would make it from the same settings. */
export function importShoutrrr(deps: ChannelsDeps, clientId: string, body: ShoutrrrImport): Promise<ChannelView> {
  const { kind, settings } = parseShoutrrr(body.url)
  return createChannel(deps, clientId, {
    name: body.name ?? defaultName(kind, settings),
    kind: kind.id,
    config: settings,
    min_severity: body.min_severity,
  })
}

/**
 * The channel as a Shoutrrr URL, secrets included: only owners and admins may ask, and the
 * answer is the only place a secret is ever shown in full. The log says who took it.
 */
export async function exportShoutrrr(deps: ChannelsDeps, clientId: string, channelId: string, userId: string): Promise<{ url: string }> {
  const row = await deps.store.channel(clientId, channelId)
  if (!row) throw notFound('Channel') // another tenant's too
  const settings = settingsOf(deps, row)
  if (settings === null) throw new AppError('conflict', "the channel's secrets cannot be read with this server's key: enter them again", 'config')
  let url: string
  try {
    url = kindOf(row).toShoutrrr(settings)
  } catch (err) {
    if (err instanceof ShoutrrrError) throw invalid(err.message)
    throw err
  }
  deps.logger.info('channel exported as a Shoutrrr URL', { channel_id: channelId, client_id: clientId, user_id: userId })
  return { url }
}
