import { EmptyState } from './EmptyState'
import { PageHeader } from './PageHeader'

/** What a page shows before it is built. */
export function ComingSoon({ title }: { title: string }) {
  return (
    <>
      <PageHeader title={title} />
      <EmptyState title="Coming soon">This page is not built yet. The API offers everything it will show: see the API reference at /docs.</EmptyState>
    </>
  )
}
