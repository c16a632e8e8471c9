import { bytes, number } from '../lib/format'
import { Banner, Card, Skeleton, Time } from '../ui'
import { LoadError } from '../ui/LoadError'
import type { InstanceSettings } from './types'
import type { Loaded } from '../lib/use-load'

/** Each stat in words; unknown keys (added by other modules) keep their name. */
const STAT_LABELS: Record<string, string> = {
  users: 'Accounts',
  operators: 'Operators',
  clients: 'Clients',
  paying_clients: 'Paying clients',
  members: 'Memberships',
  devices: 'Devices',
  api_keys: 'Active API keys',
  database_bytes: 'Database size',
  metric_rows_hardware: 'Hardware samples',
  metric_rows_network: 'Network samples',
  ingest_last_hour: 'Samples in the last hour',
  backup_last_ok_at: 'Last good backup',
  backup_failures: 'Failed backups since the last good one',
}

function statValue(key: string, v: number) {
  if (key === 'database_bytes') return bytes(v)
  if (key === 'backup_last_ok_at') return v ? <Time iso={new Date(v * 1000).toISOString()} /> : 'none yet'
  return number(v)
}

export function StatsCard({ stats }: { stats: Loaded<Record<string, number>> }) {
  return (
    <Card title="Instance">
      {stats.error ? <LoadError error={stats.error} retry={stats.reload} /> : null}
      {!stats.data ? (
        stats.error ? null : (
          <Skeleton lines={4} label="Loading statistics" />
        )
      ) : (
        <dl class="stats">
          {Object.entries(stats.data).map(([k, v]) => (
            <div key={k} class={`stat${k === 'backup_failures' && v > 0 ? ' stat-bad' : ''}`}>
              <dt>{STAT_LABELS[k] ?? k.replaceAll('_', ' ')}</dt>
              <dd class="num">{statValue(k, v)}</dd>
            </div>
          ))}
        </dl>
      )}
    </Card>
  )
}

const SIGNUP_WORDS = {
  open: 'Open: anyone who reaches the site can create an account',
  invite: 'By invitation: only people invited by a member can create an account',
  closed: 'Closed: the operator creates accounts on the server (vigil admin create)',
}

/** The settings that shape the instance; they come from the environment, so this says where to change them. */
export function InstanceCard({ instance }: { instance: Loaded<InstanceSettings> }) {
  const i = instance.data
  return (
    <Card title="Settings">
      {instance.error ? <LoadError error={instance.error} retry={instance.reload} /> : null}
      {!i ? (
        instance.error ? null : (
          <Skeleton lines={5} label="Loading settings" />
        )
      ) : (
        <>
          {i.site_url_warning && (
            <>
              <Banner tone="warning">Site address: {i.site_url_warning}</Banner>
              <div class="stack-gap" />
            </>
          )}
          <dl class="facts">
            <dt>Mode</dt>
            <dd>{i.mode === 'own' ? 'Own instance: no billing, you set each client’s limits' : 'Service: plans and billing apply'}</dd>
            <dt>Sign-up</dt>
            <dd>
              {SIGNUP_WORDS[i.signup]}
              <span class="muted"> — {i.signup_configured ? 'set by VIGIL_SIGNUP' : `the ${i.mode === 'own' ? 'own-instance' : 'service'} default`}</span>
            </dd>
            <dt>Billing</dt>
            <dd>{i.billing_configured ? 'Stripe is configured' : 'Not configured (STRIPE_SECRET_KEY unset)'}</dd>
            {i.own_limits && (
              <>
                <dt>Free-plan limits</dt>
                <dd>
                  {number(i.own_limits.max_devices)} devices, {number(i.own_limits.max_users)} members, {number(i.own_limits.rate_limit)} requests a minute
                </dd>
              </>
            )}
            <dt>Site address</dt>
            <dd class="mono">{i.site_url}</dd>
            <dt>Private networks</dt>
            <dd>
              {i.outbound_allow_private ? 'Clients may point model and webhook URLs at private addresses' : 'Only your own client may use private addresses'}
            </dd>
            <dt>Default AI</dt>
            <dd>{i.ai_default_provider}</dd>
          </dl>
          <p class="hint">
            These come from the server's environment: change <code class="mono">VIGIL_SIGNUP</code> (open, invite or closed),{' '}
            <code class="mono">VIGIL_MODE</code> or the others in its service file or container settings, then restart Vigil.
          </p>
        </>
      )}
    </Card>
  )
}
