import type { ComponentChildren } from 'preact'
import { settingsTabs } from './tabs'
import { mode } from '../lib/session'
import { Banner, PageHeader, Tabs } from '../ui'

/** The settings sections this instance has: billing only where plans are sold (service mode). */
export const visibleSettingsTabs = () => settingsTabs.filter((t) => mode.value === 'service' || t.href !== '/settings/billing')

/** Every settings page opens the same way: the section's title, then the tabs to the others. */
export function SettingsHeader({ title, subtitle, actions }: { title: string; subtitle?: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <>
      <PageHeader title={title} subtitle={subtitle} actions={actions} />
      <Tabs items={visibleSettingsTabs()} label="Settings sections" />
    </>
  )
}

/** Shown to members who may read but not change a section. */
export function ReadOnlyNote({ children }: { children?: ComponentChildren }) {
  return <Banner tone="info">{children ?? 'You can see these settings; an owner or admin of this account can change them.'}</Banner>
}
