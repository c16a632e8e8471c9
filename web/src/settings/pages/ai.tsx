import { api } from '../../lib/api'
import { useSearch } from '../../lib/router'
import { canAdmin } from '../../lib/session'
import { Skeleton } from '../../ui'
import { AiConnectionForm } from '../AiConnectionForm'
import { AiPromptForm } from '../AiPromptForm'
import { AiTestCard } from '../AiTestCard'
import { AiUsageCard, USAGE_PAGE } from '../AiUsageCard'
import { pageFromSearch } from '../Pager'
import { ReadOnlyNote, SettingsHeader } from '../SettingsHeader'
import { LoadError } from '../../ui/LoadError'
import type { AiConfig, AiProviders, AiUsage } from '../types'
import { useLoad } from '../../lib/use-load'

/** How this account's recommendations are written: the built-in rules, or a language model of its choice. */
export default function AiPage(_props: { params: Record<string, string> }) {
  const page = pageFromSearch(useSearch(), 'usage')
  const providers = useLoad(() => api.get<AiProviders>('/v1/ai/providers'))
  const config = useLoad(() => api.get<AiConfig>('/v1/ai/config'))
  const usage = useLoad(() => api.get<AiUsage>('/v1/ai/usage', { limit: USAGE_PAGE, offset: page * USAGE_PAGE }), [page])
  const manage = canAdmin.value
  const ready = providers.data && config.data
  const error = providers.error ?? config.error
  return (
    <div class="page-stack">
      <SettingsHeader title="AI" subtitle="Recommendations come from built-in rules, and from a language model when one is set up here." />
      {!manage && <ReadOnlyNote />}
      {error ? (
        <LoadError
          error={error}
          retry={() => {
            void providers.reload()
            void config.reload()
          }}
        />
      ) : null}
      {!ready ? (
        error ? null : (
          <Skeleton lines={8} height={36} label="Loading AI settings" />
        )
      ) : (
        <>
          <AiConnectionForm config={config.data!} providers={providers.data!} manage={manage} onSaved={(c) => config.set(c)} />
          <AiTestCard manage={manage} onTested={() => void usage.reload()} />
          <AiPromptForm config={config.data!} variables={providers.data!.prompt_variables} manage={manage} onSaved={() => void config.reload()} />
        </>
      )}
      <AiUsageCard usage={usage} page={page} />
    </div>
  )
}
