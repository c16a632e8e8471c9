import type { KindSpec } from './channels.kind-spec'
import type { KindId } from './channels.model'
import { discord } from './kinds/discord'
import { email } from './kinds/email'
import { gotify } from './kinds/gotify'
import { ntfy } from './kinds/ntfy'
import { pushover } from './kinds/pushover'
import { slack } from './kinds/slack'
import { teams } from './kinds/teams'
import { telegram } from './kinds/telegram'
import { webhook } from './kinds/webhook'

/** Every kind of channel, in the order the portal lists them. */
export const KINDS: Record<KindId, KindSpec> = { webhook, email, ntfy, gotify, discord, slack, telegram, teams, pushover }

/** The catalogue GET /v1/channels/kinds answers: what the portal's form needs, nothing it cannot show. */
export const KIND_CATALOGUE = {
  items: Object.values(KINDS).map((k) => ({
    id: k.id,
    name: k.name,
    description: k.description,
    shoutrrr: k.shoutrrr,
    fields: k.fields.map(({ pattern: _p, ...f }) => f),
  })),
}

/** Shoutrrr scheme → kind; generic also comes as generic+https and generic+http. */
export function kindOfScheme(protocol: string): KindSpec | null {
  const scheme = protocol.replace(/:$/, '').toLowerCase()
  if (scheme === 'generic' || scheme === 'generic+https' || scheme === 'generic+http') return webhook
  return Object.values(KINDS).find((k) => k.shoutrrr === scheme) ?? null
}
