import { setSearch } from '../lib/router'
import { Button } from '../ui'

export { pageFromSearch } from './paging'

/** Previous / next through a list whose page is in the URL (?page=2), so a reload and the back button keep it. */
export function Pager({ page, pages, total, name = 'page', label = 'Pages' }: { page: number; pages: number; total: number; name?: string; label?: string }) {
  return (
    <nav class="pager" aria-label={label}>
      <Button small disabled={page === 0} onClick={() => setSearch({ [name]: page > 1 ? page : null }, { replace: false })}>
        Previous
      </Button>
      <span class="muted">
        Page {page + 1} of {pages} · {total.toLocaleString()} in all
      </span>
      <Button small disabled={page + 1 >= pages} onClick={() => setSearch({ [name]: page + 2 }, { replace: false })}>
        Next
      </Button>
    </nav>
  )
}
