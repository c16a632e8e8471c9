import '../checks.css'
import { useState } from 'preact/hooks'
import { ApiError, api } from '../../lib/api'
import { describeError } from '../../lib/errors'
import { navigate } from '../../lib/router'
import { canAdmin } from '../../lib/session'
import { useLoad } from '../../lib/use-load'
import { Banner, Button, ButtonLink, Card, ConfirmDialog, EmptyState, PageHeader, Skeleton } from '../../ui'
import { NotesCard } from '../status/NotesCard'
import { PageForm } from '../status/PageForm'
import { useChoices } from '../status/use-choices'
import type { PageResponse } from '../types'

/** One status page: its settings and groups, its notes, a link to the public page, and delete. */
export default function Page({ params }: { params: Record<string, string> }) {
  const pageId = params.id ?? ''
  const page = useLoad(() => api.get<PageResponse>(`/v1/status-pages/${encodeURIComponent(pageId)}`), [pageId])
  const choices = useChoices()
  const [saved, setSaved] = useState(false)
  const [deleting, setDeleting] = useState(false)

  if (page.error && !page.data) {
    const gone = page.error instanceof ApiError && page.error.status === 404
    return (
      <>
        <PageHeader title={gone ? 'Status page not found' : 'Status page'} />
        {gone ? (
          <EmptyState title="This status page does not exist" action={<ButtonLink href="/checks/status-pages">Back to the status pages</ButtonLink>}>
            It may have been deleted, or it belongs to another account.
          </EmptyState>
        ) : (
          <Banner tone="error">{describeError(page.error)}</Banner>
        )}
      </>
    )
  }
  const p = page.data
  if (!p) return <Skeleton lines={6} height={32} label="Loading the status page" />
  return (
    <div class="ck-page">
      <PageHeader
        title={p.title}
        docTitle={`${p.title} · Status pages`}
        subtitle={
          <>
            Public at{' '}
            <a href={p.public_path} target="_blank" rel="noopener">
              {location.origin}
              {p.public_path}
            </a>
            {p.published ? '' : ' (hidden: not published)'}
          </>
        }
        actions={
          canAdmin.value ? (
            <Button variant="danger" onClick={() => setDeleting(true)}>
              Delete
            </Button>
          ) : null
        }
      />
      {saved && <Banner tone="success">Saved. Visitors see the change when they next load the page (a browser may keep its copy up to 30 seconds).</Banner>}
      {canAdmin.value ? (
        <Card title="Settings and groups">
          <PageForm
            key={p.updated_at}
            page={p}
            choices={choices}
            onSaved={(next) => {
              page.set(next)
              setSaved(true)
            }}
          />
        </Card>
      ) : (
        <Banner tone="info">Only owners and admins change status pages.</Banner>
      )}
      <NotesCard pageId={p.id} />
      <ConfirmDialog
        open={deleting}
        title={`Delete “${p.title}”?`}
        confirmLabel="Delete the page"
        danger
        onClose={() => setDeleting(false)}
        onConfirm={async () => {
          await api.del(`/v1/status-pages/${encodeURIComponent(p.id)}`)
          navigate('/checks/status-pages')
        }}
      >
        Its public address stops answering at once, and its notes are deleted with it.
      </ConfirmDialog>
    </div>
  )
}
