import type { ComponentChildren } from 'preact'
import { settingsTabs } from '../routes'
import { mode } from '../lib/session'
import { describeError } from '../lib/errors'
import { Banner, Button, PageHeader, Tabs } from '../ui'

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

/** A read that failed: what happened, and a way to try again. */
export function LoadError({ error, retry }: { error: unknown; retry: () => void }) {
  return (
    <Banner tone="error">
      {describeError(error)}{' '}
      <Button small onClick={retry}>
        Try again
      </Button>
    </Banner>
  )
}

/** Shown to members who may read but not change a section. */
export function ReadOnlyNote({ children }: { children?: ComponentChildren }) {
  return <Banner tone="info">{children ?? 'You can see these settings; an owner or admin of this account can change them.'}</Banner>
}
