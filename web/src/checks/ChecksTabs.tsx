import { Tabs } from '../ui'

/** The section's two lists: the checks, and the public status pages made of them. */
export function ChecksTabs() {
  return (
    <Tabs
      label="Checks"
      items={[
        { href: '/checks', label: 'Checks' },
        { href: '/checks/status-pages', label: 'Status pages' },
      ]}
    />
  )
}
