import { Field, GroupError } from '../ui'
import { Select } from '../ui/Select'
import { formatHeaders, KIND_FIELDS } from './check-form'
import type { CheckKind, CheckSettings } from './types'

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].map((m) => ({ value: m, label: m }))
const RECORDS = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SRV', 'PTR', 'CAA'].map((r) => ({ value: r, label: r }))

const str = (v: unknown) => (v === undefined || v === null ? '' : String(v))

/** A checkbox setting; a 422 on it shows under it. */
function Toggle({ name, label, checked, hint }: { name: string; label: string; checked: boolean; hint?: string }) {
  return (
    <div class="ck-toggle">
      <label class="check">
        <input type="checkbox" name={name} defaultChecked={checked} />
        <span>
          {label}
          {hint && <span class="hint"> {hint}</span>}
        </span>
      </label>
      <GroupError name={name} />
    </div>
  )
}

/** The settings inputs of one kind, each named `settings.<field>` so a 422's `loc` lands on it. */
export function CheckSettingsFields({ kind, settings }: { kind: CheckKind; settings: CheckSettings }) {
  const shown = new Set(KIND_FIELDS[kind])
  const s = settings
  const has = (f: keyof CheckSettings) => shown.has(f)
  return (
    <fieldset class="ck-fieldset">
      <legend>What to check</legend>
      {has('url') && (
        <Field
          name="settings.url"
          label="URL"
          type="url"
          class="field-mono"
          maxLength={2000}
          defaultValue={str(s.url)}
          placeholder="https://example.com/health"
          hint="http or https. The hub follows the account's outbound policy; an agent reaches its own network."
        />
      )}
      {has('method') && <Field name="settings.method" label="Method" control={(p) => <Select {...p} options={METHODS} selected={s.method ?? 'GET'} />} />}
      {has('host') && (
        <Field
          name="settings.host"
          label="Host"
          class="field-mono"
          maxLength={253}
          defaultValue={str(s.host)}
          placeholder={kind === 'ping' ? '192.168.1.1' : 'db.example.lan'}
          hint="A host name or an IP address."
        />
      )}
      {has('port') && (
        <Field
          name="settings.port"
          label="Port"
          inputMode="numeric"
          defaultValue={str(s.port)}
          optional={kind === 'tls'}
          hint={kind === 'tls' ? 'Default 443.' : undefined}
        />
      )}
      {kind === 'ping' && (
        <p class="hint">
          Ping sends one ICMP echo with the system's <code>ping</code> (Debian: <code>iputils-ping</code>) where the check runs; it needs no privilege where{' '}
          <code>net.ipv4.ping_group_range</code> allows unprivileged ICMP.
        </p>
      )}
      {has('name') && (
        <Field name="settings.name" label="Name to resolve" class="field-mono" maxLength={253} defaultValue={str(s.name)} placeholder="example.com" />
      )}
      {has('record_type') && (
        <Field name="settings.record_type" label="Record type" control={(p) => <Select {...p} options={RECORDS} selected={s.record_type ?? 'A'} />} />
      )}
      {has('expected') && (
        <Field
          name="settings.expected"
          label="Expected answers"
          optional
          hint="One per line; all must be present (others may be too)."
          control={(p) => <textarea {...p} rows={3} class="mono" defaultValue={(s.expected ?? []).join('\n')} />}
        />
      )}
      {has('resolver') && (
        <Field
          name="settings.resolver"
          label="Resolver"
          optional
          class="field-mono"
          maxLength={60}
          defaultValue={str(s.resolver)}
          placeholder="1.1.1.1:53"
          hint="An IP address with an optional :port; empty uses the system's resolver."
        />
      )}
      {has('headers') && (
        <Field
          name="settings.headers"
          label="Request headers"
          optional
          hint="One per line, as Name: value (at most 20)."
          control={(p) => <textarea {...p} rows={2} class="mono" defaultValue={formatHeaders(s.headers)} />}
        />
      )}
      {has('body') && (
        <Field
          name="settings.body"
          label="Request body"
          optional
          control={(p) => <textarea {...p} rows={2} class="mono" maxLength={10_000} defaultValue={str(s.body)} />}
        />
      )}
      {has('accepted_status') && (
        <Field
          name="settings.accepted_status"
          label="Accepted status codes"
          class="field-mono"
          defaultValue={(s.accepted_status ?? ['200-299']).join(', ')}
          hint="Codes or ranges, comma-separated: 200-299, 301."
        />
      )}
      {has('keyword') && (
        <Field name="settings.keyword" label="Keyword" optional maxLength={200} defaultValue={str(s.keyword)} hint="Text the answer must contain." />
      )}
      {has('keyword_absent') && <Toggle name="settings.keyword_absent" label="Up only when the keyword is absent" checked={s.keyword_absent === true} />}
      {has('json_path') && (
        <Field
          name="settings.json_path"
          label="JSON path"
          optional
          class="field-mono"
          maxLength={200}
          defaultValue={str(s.json_path)}
          placeholder="$.status"
          hint="A path into a JSON answer, such as $.checks[0].status."
        />
      )}
      {has('json_expected') && (
        <Field
          name="settings.json_expected"
          label="Value at the JSON path"
          optional
          maxLength={200}
          defaultValue={str(s.json_expected)}
          hint="Compared as text."
        />
      )}
      {has('follow_redirects') && (
        <Toggle name="settings.follow_redirects" label="Follow redirects" hint="(at most 5)" checked={s.follow_redirects !== false} />
      )}
      {has('verify_tls') && <Toggle name="settings.verify_tls" label="Verify the certificate" hint="(chain and name)" checked={s.verify_tls !== false} />}
      {has('cert_warn_days') && (
        <Field
          name="settings.cert_warn_days"
          label="Certificate warning"
          optional
          inputMode="numeric"
          defaultValue={str(s.cert_warn_days)}
          hint="Days before the certificate expires when alerts may warn (default 14)."
        />
      )}
      {has('slow_ms') && (
        <Field
          name="settings.slow_ms"
          label="Slow above (ms)"
          optional
          inputMode="numeric"
          defaultValue={str(s.slow_ms)}
          hint="A slower answer still counts as up; alert rules can watch it."
        />
      )}
      {has('period_s') && (
        <Field
          name="settings.period_s"
          label="Period (seconds)"
          inputMode="numeric"
          defaultValue={str(s.period_s)}
          hint="How often the job calls: 86400 for a daily job."
        />
      )}
      {has('grace_s') && (
        <Field
          name="settings.grace_s"
          label="Grace (seconds)"
          optional
          inputMode="numeric"
          defaultValue={str(s.grace_s)}
          hint="How late a call may be before the check is down (default 60)."
        />
      )}
    </fieldset>
  )
}
