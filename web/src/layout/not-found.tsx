import { Link } from '../lib/router'
import { me } from '../lib/session'
import { PageHeader } from '../ui'

export default function NotFound(_props: { params: Record<string, string> }) {
  return (
    <div class="not-found">
      <PageHeader title="Page not found" />
      <p>
        Nothing lives at <code>{window.location.pathname}</code>. The link may be old, or the thing it pointed at was removed.
      </p>
      <p>{me.value ? <Link href="/dashboard">Go to the dashboard</Link> : <Link href="/signin">Sign in</Link>}</p>
    </div>
  )
}
