import '../checks.css'
import '../../devices/monitor.css'
import { api } from '../../lib/api'
import { describeError } from '../../lib/errors'
import { navigate, setSearch, useSearch } from '../../lib/router'
import { useLoad } from '../../lib/use-load'
import { Banner, Card, PageHeader, Skeleton } from '../../ui'
import { draftFor } from '../check-form'
import { KIND_LABELS } from '../check-list'
import { CheckForm } from '../CheckForm'
import { keepSecret } from '../fresh-secret'
import type { CheckDetail, CheckKind, CheckResponse } from '../types'
import { useDevices } from '../use-devices'

const KINDS: { kind: CheckKind; what: string }[] = [
  { kind: 'http', what: 'A web page or API answers with an accepted status (and keyword or JSON value).' },
  { kind: 'tcp', what: 'A port accepts connections (a database, SSH, mail).' },
  { kind: 'ping', what: 'A host answers ICMP echo.' },
  { kind: 'dns', what: 'A name resolves, optionally to the answers you expect.' },
  { kind: 'tls', what: 'A certificate is valid and not about to expire.' },
  { kind: 'heartbeat', what: 'A cron job or script calls a secret URL; a late call means down.' },
]

const isKind = (v: string | null): v is CheckKind => KINDS.some((k) => k.kind === v)

/** The kinds as a group of radio buttons; the choice lives in the URL (?kind=), so the form below is that kind's. */
function KindPicker({ kind }: { kind: CheckKind }) {
  return (
    <fieldset class="ck-fieldset ck-kinds-picker">
      <legend>Kind</legend>
      {KINDS.map((k) => (
        <label key={k.kind} class="check">
          <input type="radio" name="kind-choice" value={k.kind} checked={k.kind === kind} onChange={() => setSearch({ kind: k.kind })} />
          <span>
            <strong>{KIND_LABELS[k.kind]}</strong> <span class="hint">{k.what}</span>
          </span>
        </label>
      ))}
    </fieldset>
  )
}

const opened = (c: CheckResponse) => {
  // a heartbeat's token is in this answer only: its page shows it once
  keepSecret(c.id, c.heartbeat_token ? c.heartbeat_url : null)
  navigate(`/checks/${encodeURIComponent(c.id)}`)
}

/** /checks/new (a kind, then its form) and /checks/:id/edit (the check's kind stays). */
export default function Page({ params }: { params: Record<string, string> }) {
  const checkId = params.id
  const search = useSearch()
  const devices = useDevices()
  const existing = useLoad(() => (checkId ? api.get<CheckDetail>(`/v1/checks/${encodeURIComponent(checkId)}`) : Promise.resolve(null)), [checkId])

  if (!checkId) {
    const chosen = search.get('kind')
    const kind: CheckKind = isKind(chosen) ? chosen : 'http'
    return (
      <>
        <PageHeader title="Add a check" />
        <Card>
          <KindPicker kind={kind} />
          <CheckForm key={kind} draft={draftFor(kind)} devices={devices} onSaved={opened} onCancel={() => navigate('/checks')} />
        </Card>
      </>
    )
  }
  const c = existing.data
  return (
    <>
      <PageHeader title={c ? `Edit “${c.name}”` : 'Edit the check'} docTitle="Edit the check" />
      {existing.error ? <Banner tone="error">{describeError(existing.error)}</Banner> : null}
      {c ? (
        <Card>
          <p class="vg-muted">Kind: {KIND_LABELS[c.kind]} (a check keeps its kind; make a new check for another).</p>
          <CheckForm
            draft={c}
            checkId={c.id}
            devices={devices}
            onSaved={(saved) => navigate(`/checks/${encodeURIComponent(saved.id)}`)}
            onCancel={() => navigate(`/checks/${encodeURIComponent(c.id)}`)}
          />
        </Card>
      ) : (
        !existing.error && <Skeleton lines={8} height={40} label="Loading the check" />
      )}
    </>
  )
}
