import { useState } from 'preact/hooks'
import { ms } from '../lib/format'
import { ApiError, api } from '../lib/api'
import { describeError } from '../lib/errors'
import { Banner, Button, StatusBadge, Time } from '../ui'
import { settingsFromForm } from './check-form'
import type { CheckKind, ProbeResult } from './types'

type Outcome = { result: ProbeResult } | { error: unknown } | null

/** The test's own 422: each message with the setting it names (the form's fields are not marked by a test). */
function problems(err: unknown): string[] {
  if (!(err instanceof ApiError) || !err.detail.length) return [describeError(err)]
  return err.detail.map((d) => `${d.loc.filter((p) => p !== 'body').join('.')}: ${d.msg}`)
}

/**
 * "Test now": runs the form's definition once from the hub (POST /v1/checks/test, nothing stored)
 * and shows the raw result: state, time, status code, error, certificate expiry and the answer.
 */
export function TestNow({ kind }: { kind: CheckKind }) {
  const [busy, setBusy] = useState(false)
  const [outcome, setOutcome] = useState<Outcome>(null)
  const run = async (e: Event) => {
    const form = (e.currentTarget as HTMLButtonElement).form
    if (!form) return
    const data = new FormData(form)
    const timeout = Number(data.get('timeout_ms'))
    setBusy(true)
    try {
      const result = await api.post<ProbeResult>('/v1/checks/test', {
        kind,
        settings: settingsFromForm(kind, data),
        ...(Number.isInteger(timeout) && timeout > 0 ? { timeout_ms: timeout } : {}),
      })
      setOutcome({ result })
    } catch (error) {
      setOutcome({ error })
    } finally {
      setBusy(false)
    }
  }
  return (
    <>
      <Button onClick={run} loading={busy}>
        Test now
      </Button>
      <div class="ck-test" aria-live="polite">
        {outcome && 'error' in outcome && (
          <Banner tone="error">
            The test could not run:
            <ul>
              {problems(outcome.error).map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          </Banner>
        )}
        {outcome && 'result' in outcome && <TestResult result={outcome.result} />}
      </div>
    </>
  )
}

function TestResult({ result: r }: { result: ProbeResult }) {
  return (
    <section class="ck-test-result" aria-label="Test result">
      <p>
        <StatusBadge status={r.ok ? 'online' : 'offline'} label={r.ok ? 'Up' : 'Down'} /> <span class="vg-num">{ms(r.response_ms)}</span>
        {r.status_code !== null && <span> · HTTP {r.status_code}</span>}
        {r.error && <span> · {r.error}</span>}
        {r.cert_expires_at && (
          <span>
            {' '}
            · certificate expires <Time iso={r.cert_expires_at} />
          </span>
        )}
      </p>
      <pre class="ck-raw">{JSON.stringify(r, null, 2)}</pre>
    </section>
  )
}
