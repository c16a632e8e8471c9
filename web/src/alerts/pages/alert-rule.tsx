import '../alerts.css'
import { AlertsTabs } from '../AlertsTabs'
import { LoadError } from '../../ui/LoadError'
import { OverridesCard } from '../OverridesCard'
import { NEW_RULE } from '../rule-form'
import { RuleForm } from '../RuleForm'
import type { Channel, DeviceRef, Rule } from '../types'
import { useLoad } from '../../lib/use-load'
import { api } from '../../lib/api'
import { navigate } from '../../lib/router'
import { canAdmin } from '../../lib/session'
import { Banner, Card, PageHeader, Skeleton } from '../../ui'

/** /alerts/rules/new and /alerts/rules/:id — a rule's form, and for an existing rule its per-device overrides. */
export default function RulePage({ params }: { params: Record<string, string> }) {
  const id = params.id ?? null
  const isNew = id === null
  const rule = useLoad(() => (isNew ? Promise.resolve(null) : api.get<Rule>(`/v1/alerts/rules/${encodeURIComponent(id)}`)), [id])
  const devices = useLoad(() => api.get<DeviceRef[]>('/v1/clients/me/devices'))
  const channels = useLoad(() => api.get<{ items: Channel[] }>('/v1/channels'))
  const admin = canAdmin.value
  const title = isNew ? 'New alert rule' : (rule.data?.name ?? 'Alert rule')

  const save = async (body: Record<string, unknown>) => {
    if (isNew) await api.post<Rule>('/v1/alerts/rules', body)
    else await api.patch<Rule>(`/v1/alerts/rules/${encodeURIComponent(id)}`, body)
    navigate('/alerts/rules')
  }
  const ready = (isNew || rule.data) && devices.data && channels.data
  const error = rule.error ?? devices.error ?? channels.error
  return (
    <>
      <PageHeader title={title} subtitle={rule.data?.builtin ? 'One of the default rules every account starts with: yours to change.' : undefined} />
      <AlertsTabs />
      <div class="alert-stack">
        {!admin && <Banner tone="info">You can read this rule; an owner or admin of this account can change it.</Banner>}
        {rule.data?.scope_device_missing && (
          <Banner tone="warning">
            The device this rule watches was deleted, so the rule checks nothing. Pick another device (or all devices, or a tag) below, or delete the rule.
          </Banner>
        )}
        {error ? <LoadError error={error} retry={() => void Promise.all([rule.reload(), devices.reload(), channels.reload()])} /> : null}
        {!ready && !error && <Skeleton lines={8} height={36} label="Loading the rule" />}
        {ready && (
          <Card>
            <div class="form-narrow">
              <RuleForm
                rule={rule.data ?? NEW_RULE}
                isNew={isNew}
                devices={devices.data!}
                channels={channels.data!.items}
                onSave={save}
                onCancel={() => navigate('/alerts/rules')}
              />
            </div>
          </Card>
        )}
        {ready && rule.data && <OverridesCard rule={rule.data} devices={devices.data!} canEdit={admin} onChange={(r) => rule.set(r)} />}
      </div>
    </>
  )
}
