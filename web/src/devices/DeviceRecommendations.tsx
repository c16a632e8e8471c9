import { useEffect, useState } from 'preact/hooks'
import { api } from '../lib/api'
import { describeError } from '../lib/errors'
import { Banner, Button, Card, EmptyState, Skeleton } from '../ui'
import { generateSummary, type GenerateResult, type Recommendation } from './recommendation-types'
import { RecommendationItem } from './RecommendationItem'

/** The device's newest recommendations, and (owner/admin) a run of the rules and the model now. */
export function DeviceRecommendations({ deviceId, canGenerate }: { deviceId: string; canGenerate: boolean }) {
  const [items, setItems] = useState<Recommendation[] | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const [result, setResult] = useState<string | null>(null)
  const id = encodeURIComponent(deviceId)

  const load = () =>
    api
      .get<{ items: Recommendation[] }>(`/v1/recommendations/${id}/latest`, { limit: 5 })
      .then((r) => {
        setItems(r.items)
        setError(null)
      })
      .catch((err) => setError(describeError(err)))

  useEffect(() => {
    void load()
  }, [deviceId])

  const generate = async () => {
    setBusy(true)
    setResult(null)
    try {
      const r = await api.post<GenerateResult>(`/v1/ai/generate/${id}`)
      setResult(generateSummary(r))
      await load()
    } catch (err) {
      setResult(describeError(err))
    } finally {
      setBusy(false)
    }
  }

  return (
    <Card
      title="Recommendations"
      class="vg-device-recs"
      actions={
        canGenerate ? (
          <Button small onClick={generate} loading={busy}>
            Generate now
          </Button>
        ) : undefined
      }
    >
      {result && <Banner tone="info">{result}</Banner>}
      {error && <Banner tone="error">{error}</Banner>}
      {!items && !error && <Skeleton lines={3} label="Loading recommendations" />}
      {items && items.length === 0 && (
        <EmptyState title="No recommendations yet">The rules look at this device's figures every few hours; a finding shows here.</EmptyState>
      )}
      {items && items.length > 0 && (
        <ul class="vg-rec-list">
          {items.map((r) => (
            <RecommendationItem key={r.id} rec={r} />
          ))}
        </ul>
      )}
    </Card>
  )
}
