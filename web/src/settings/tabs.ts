// Kept here, not in the route table: the settings pages import their tabs, and the route table imports the pages.

/** The settings sections, as tabs on every settings page. */
export const settingsTabs = [
  { href: '/settings/keys', label: 'API keys' },
  { href: '/settings/members', label: 'Members' },
  { href: '/settings/billing', label: 'Billing' },
  { href: '/settings/ai', label: 'AI' },
  { href: '/settings/channels', label: 'Channels' },
  { href: '/settings/webhooks', label: 'Webhooks' },
  { href: '/settings/account', label: 'Your account' },
]
