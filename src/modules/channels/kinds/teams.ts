import { type KindSpec, queryOf, ShoutrrrError, str } from '../channels.kind-spec'
import type { Severity } from '../channels.model'
import { truncate } from '../channels.render'

/** Adaptive Card text colours */
const COLOR: Record<Severity, string> = { info: 'Accent', warning: 'Warning', critical: 'Attention' }

/**
 * Microsoft Teams through a Power Automate workflow ("When a Teams webhook request is
 * received", the successor of the retired Office 365 connectors): a message whose attachment
 * is an Adaptive Card, the shape that trigger's "Post card in a chat or channel" step takes.
 */
export const teams: KindSpec = {
  id: 'teams',
  name: 'Microsoft Teams (Workflows)',
  description: 'Posts an Adaptive Card through a Teams workflow webhook (the "Post to a channel when a webhook request is received" template).',
  shoutrrr: 'teams',
  fields: [
    {
      name: 'workflow_url',
      label: 'Workflow URL',
      type: 'url',
      required: true,
      secret: true,
      default: null,
      description: "the workflow trigger's HTTP URL (…/workflows/…/triggers/manual/paths/invoke?…&sig=…)",
    },
  ],
  targets: (s) => [str(s, 'workflow_url')!],
  render: (s, n, env) => ({
    transport: 'http',
    method: 'POST',
    url: str(s, 'workflow_url')!,
    headers: { 'content-type': 'application/json', 'user-agent': `Vigil/${env.version}` },
    body: JSON.stringify({
      type: 'message',
      attachments: [
        {
          contentType: 'application/vnd.microsoft.card.adaptive',
          contentUrl: null,
          content: {
            $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
            type: 'AdaptiveCard',
            version: '1.4',
            msteams: { width: 'Full' },
            body: [
              { type: 'TextBlock', text: truncate(n.title, 300), weight: 'Bolder', size: 'Medium', color: COLOR[n.severity], wrap: true },
              { type: 'TextBlock', text: truncate(n.body, 4000), wrap: true },
              {
                type: 'FactSet',
                facts: [
                  { title: 'Severity', value: n.severity },
                  { title: 'Event', value: n.event },
                  ...(n.devices.length ? [{ title: 'Devices', value: truncate(n.devices.map((d) => d.name).join(', '), 500) }] : []),
                ],
              },
            ],
            ...(n.url ? { actions: [{ type: 'Action.OpenUrl', title: 'Open in Vigil', url: n.url }] } : {}),
          },
        },
      ],
    }),
  }),
  fromShoutrrr(u) {
    const host = queryOf(u).get('host')
    if (!host) throw new ShoutrrrError('host is missing: Teams URLs are teams://?host=<workflow URL> (the legacy webhook.office.com form no longer works)')
    if (!/^https?:\/\//i.test(host)) throw new ShoutrrrError('host must be the full workflow URL, https://…')
    return { workflow_url: host }
  },
  toShoutrrr: (s) => `teams://?${new URLSearchParams({ host: str(s, 'workflow_url')! })}`,
}
