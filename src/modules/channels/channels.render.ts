import type { ChannelNotification, Severity } from './channels.model'

/** Colours per severity as 0xRRGGBB (Discord's embed colour, Slack-like hues). */
export const SEVERITY_COLOR: Record<Severity, number> = { info: 0x2488ff, warning: 0xffc441, critical: 0xd60510 }
export const SEVERITY_EMOJI: Record<Severity, string> = { info: 'ℹ️', warning: '⚠️', critical: '🚨' }

/** At most `max` characters (code points), with an ellipsis when cut: services refuse or cut longer fields themselves. */
export function truncate(text: string, max: number): string {
  const chars = Array.from(text)
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`
}

export const escapeHtml = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;')

/** The plain-text message: the body, then the portal link when there is one. */
export function plainText(n: ChannelNotification): string {
  return n.url ? `${n.body}\n\n${n.url}` : n.body
}

/** "Firing · critical · web-1, web-2": the context line several kinds show under the text. */
export function contextLine(n: ChannelNotification): string {
  const event = n.event.charAt(0).toUpperCase() + n.event.slice(1)
  const devices = n.devices.map((d) => d.name).join(', ')
  return [event, n.severity, devices].filter(Boolean).join(' · ')
}
