import { Tabs } from '../ui'

const ITEMS = [
  { href: '/alerts', label: 'Alerts' },
  { href: '/alerts/rules', label: 'Rules' },
  { href: '/alerts/silences', label: 'Silences' },
]

/** The alerting sections as tabs: what fires, the rules, the silences. */
export function AlertsTabs() {
  return <Tabs items={ITEMS} label="Alerting sections" />
}
