import { useState } from 'preact/hooks'
import { api } from '../lib/api'
import { describeError } from '../lib/errors'
import { ms } from '../lib/format'
import { Banner, Button, Card } from '../ui'
import type { AiTestResult } from './types'

/** One small call to the saved connection, to know it works before the schedule relies on it. */
export function AiTestCard({ manage, onTested }: { manage: boolean; onTested: () => void }) {
  const [busy, setBusy] = useState(false)
  const [result, setResult] = useState<{ tone: 'success' | 'error'; text: string } | null>(null)
  const run = async () => {
    setBusy(true)
    setResult(null)
    try {
      const r = await api.post<AiTestResult>('/v1/ai/test')
      setResult(
        r.ok
          ? { tone: 'success', text: `Connected: ${r.provider}${r.model ? ` (${r.model})` : ''} answered in ${ms(r.latency_ms)}.` }
          : { tone: 'error', text: `The provider did not answer as expected: ${r.error ?? 'no details'}. Check the base URL, the model and the key.` },
      )
    } catch (err) {
      setResult({ tone: 'error', text: describeError(err) })
    } finally {
      setBusy(false)
      onTested()
    }
  }
  return (
    <Card title="Test the connection">
      <p class="muted">Sends one short request with the saved settings (save changes first). It counts against today's budget.</p>
      {result && <Banner tone={result.tone}>{result.text}</Banner>}
      <div class="form-actions">
        <Button onClick={run} loading={busy} disabled={!manage}>
          Test connection
        </Button>
        {!manage && <span class="hint">An owner or admin can run the test.</span>}
      </div>
    </Card>
  )
}
