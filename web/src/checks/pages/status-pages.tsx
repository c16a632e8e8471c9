import '../checks.css'
import { useState } from 'preact/hooks'
import { api } from '../../lib/api'
import { describeError } from '../../lib/errors'
import { Link, navigate } from '../../lib/router'
import { canAdmin } from '../../lib/session'
import { useLoad } from '../../lib/use-load'
import { Banner, Button, Card, DataTable, EmptyState, PageHeader, Skeleton, StatusBadge } from '../../ui'
import { ChecksTabs } from '../ChecksTabs'
import { PageForm } from '../status/PageForm'
import { useChoices } from '../status/use-choices'
import type { PageResponse } from '../types'

/** The account's public status pages, with a link to each and a form for a new one. */
export default function Page(_props: { params: Record<string, string> }) {
  const pages = useLoad(() => api.get<PageResponse[]>('/v1/status-pages'))
  const [creating, setCreating] = useState(false)
  const choices = useChoices()
  const add =
    canAdmin.value && !creating ? (
      <Button variant="primary" onClick={() => setCreating(true)}>
        New status page
      </Button>
    ) : null
  return (
    <>
      <PageHeader title="Status pages" subtitle="Public pages, without sign-in, that show the checks and devices you choose." actions={add} />
      <ChecksTabs />
      {pages.error ? <Banner tone="error">{describeError(pages.error)}</Banner> : null}
      {creating && (
        <Card title="New status page">
          <PageForm page={null} choices={choices} onSaved={(p) => navigate(`/checks/status-pages/${encodeURIComponent(p.id)}`)} />
        </Card>
      )}
      {!pages.data ? (
        <Skeleton lines={3} height={40} label="Loading status pages" />
      ) : pages.data.length === 0 ? (
        !creating && (
          <EmptyState title="No status pages yet" action={add}>
            A status page tells your users what is up at /status/your-name: groups of checks and devices with their state, 90 days of uptime and the notes you
            post during an incident or before maintenance. It shows only what you choose.
          </EmptyState>
        )
      ) : (
        <DataTable
          caption="Status pages"
          rows={pages.data}
          rowKey={(p) => p.id}
          columns={[
            {
              key: 'title',
              label: 'Page',
              render: (p) => <Link href={`/checks/status-pages/${encodeURIComponent(p.id)}`}>{p.title}</Link>,
            },
            {
              key: 'public',
              label: 'Public address',
              render: (p) => (
                <a class="ck-target" href={p.public_path} target="_blank" rel="noopener">
                  {p.public_path}
                </a>
              ),
            },
            { key: 'domain', label: 'Custom domain', render: (p) => p.custom_domain ?? '—' },
            {
              key: 'published',
              label: 'Published',
              render: (p) => <StatusBadge status={p.published ? 'active' : 'revoked'} label={p.published ? 'Published' : 'Hidden'} />,
            },
            { key: 'items', label: 'Items', numeric: true, render: (p) => String(p.groups.reduce((n, g) => n + g.items.length, 0)) },
          ]}
        />
      )}
    </>
  )
}
