import '../checks.css'
import { useMemo } from 'preact/hooks'
import { api } from '../../lib/api'
import { describeError } from '../../lib/errors'
import { setSearch, useSearch } from '../../lib/router'
import { canAdmin } from '../../lib/session'
import { useLoad } from '../../lib/use-load'
import { Banner, Button, ButtonLink, DataTable, EmptyState, PageHeader, Skeleton } from '../../ui'
import { countState, matches, sortChecks } from '../check-list'
import { CHECK_COLUMNS } from '../CheckRow'
import { ChecksTabs } from '../ChecksTabs'
import type { CheckListItem } from '../types'
import { usePoll } from '../usePoll'

function summary(list: CheckListItem[]): string {
  const down = countState(list, 'down')
  const degraded = countState(list, 'degraded')
  const parts = [`${list.length} ${list.length === 1 ? 'check' : 'checks'}`]
  if (down) parts.push(`${down} down`)
  if (degraded) parts.push(`${degraded} degraded`)
  return parts.join(' · ')
}

/** Every check of the account, those that need attention first, read again every few seconds. */
export default function Page(_props: { params: Record<string, string> }) {
  const search = useSearch()
  const query = search.get('q') ?? ''
  const checks = useLoad(() => api.get<CheckListItem[]>('/v1/checks'))
  usePoll(checks.reload)
  const shown = useMemo(() => (checks.data ? sortChecks(checks.data.filter((c) => matches(c, query))) : null), [checks.data, query])
  const add = canAdmin.value ? (
    <ButtonLink href="/checks/new" variant="primary">
      Add a check
    </ButtonLink>
  ) : null

  return (
    <>
      <PageHeader title="Checks" subtitle={checks.data ? summary(checks.data) : 'Loading checks…'} actions={add} />
      <ChecksTabs />
      {checks.error ? <Banner tone="error">{describeError(checks.error)}</Banner> : null}
      {checks.data && checks.data.length === 0 ? (
        <EmptyState title="No checks yet" icon="check-circle" action={add}>
          <p>A check asks a service whether it is up, on a schedule, and keeps its uptime, response times and incidents:</p>
          <ul class="ck-kinds">
            <li>
              <strong>HTTP(S)</strong>: a web page or API answers with an accepted status, optionally containing a keyword or a JSON value.
            </li>
            <li>
              <strong>TCP port</strong>, <strong>ping</strong> and <strong>DNS</strong>: a port accepts connections, a host answers, a name resolves as
              expected.
            </li>
            <li>
              <strong>TLS certificate</strong>: warns days before a certificate expires.
            </li>
            <li>
              <strong>Heartbeat</strong>: a cron job or a backup script calls a secret URL each time it runs; when a call is late, the check is down.
            </li>
          </ul>
          <p>The hub runs checks, or agents inside your network do, for a router or an intranet site only the LAN can reach.</p>
        </EmptyState>
      ) : (
        <>
          <div class="vg-toolbar">
            <div class="vg-toolbar-field">
              <label for="checks-search">Search</label>
              <input
                id="checks-search"
                type="search"
                value={query}
                placeholder="Name, kind, address, state…"
                autocomplete="off"
                onInput={(e) => setSearch({ q: e.currentTarget.value })}
              />
            </div>
            {shown && query && (
              <p class="vg-toolbar-count" aria-live="polite">
                {shown.length} of {checks.data!.length} shown
              </p>
            )}
          </div>
          {shown === null ? (
            <Skeleton lines={4} height={40} label="Loading checks" />
          ) : shown.length === 0 ? (
            <EmptyState title={`No check matches “${query}”`} action={<Button onClick={() => setSearch({ q: null })}>Clear the search</Button>}>
              Search looks in names, kinds, addresses and states.
            </EmptyState>
          ) : (
            <DataTable caption="Checks, those that need attention first" columns={CHECK_COLUMNS} rows={shown} rowKey={(c) => c.id} />
          )}
        </>
      )}
    </>
  )
}
