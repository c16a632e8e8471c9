import type { Exposition } from '../observability/observability.exposition'
import { labelText } from '../observability/observability.exposition'
import type { ScrapeScope } from '../observability/observability.service'
import type { CheckChange } from './checks.attempt'
import type { CheckRow } from './checks.store.rows'

/** The checks as the scrape reads them, synchronously (the scrape's sections are). */
export interface CheckRows {
  list(clientId: string): CheckRow[]
  all(): CheckRow[]
}
import { stateOf } from './checks.views'

const STATES = ['up', 'down', 'degraded', 'pending', 'paused'] as const

/**
 * The checks' part of GET /metrics: each check's state (one-hot over a bounded label), its last
 * response time and its certificate's end, labelled by check id, name, kind and account; a
 * tenant's scrape sees its own checks. Attempts by result are counted for the instance.
 */
export function checksExposition(store: Pick<CheckRows, 'list' | 'all'>) {
  const attempts = { ok: 0, failed: 0 }
  return {
    /** every recorded attempt (the onCheckChange hook) */
    counted(change: CheckChange) {
      attempts[change.attempt.ok ? 'ok' : 'failed']++
    },
    write(out: Exposition, scope: ScrapeScope) {
      const rows = scope.kind === 'client' ? store.list(scope.clientId) : store.all()
      if (scope.kind === 'instance') {
        out.family('vigil_check_attempts_total', 'counter', 'Check attempts recorded since start (the hub and agents), by result')
        for (const r of ['ok', 'failed'] as const) out.sample('vigil_check_attempts_total', labelText([['result', r]]), attempts[r])
      }
      if (!rows.length) return
      const labelsOf = rows.map((r) =>
        labelText([
          ['check', r.id],
          ['name', r.name],
          ['kind', r.kind],
          ['client', r.client_id],
        ]),
      )
      out.family('vigil_check_status', 'gauge', 'Each check: 1 for its current state (up, down, degraded, pending, paused), 0 for the others')
      rows.forEach((r, i) => {
        const state = stateOf(r)
        for (const s of STATES) out.sample('vigil_check_status', labelsOf[i]!.replace(/}$/, `,state="${s}"}`), s === state ? 1 : 0)
      })
      out.family('vigil_check_response_seconds', 'gauge', "Each check's last response time")
      rows.forEach((r, i) => {
        if (r.last_response_ms !== null) out.sample('vigil_check_response_seconds', labelsOf[i]!, r.last_response_ms / 1000)
      })
      out.family('vigil_check_certificate_expiry_timestamp_seconds', 'gauge', "When each check's TLS certificate expires (Unix time), where seen")
      rows.forEach((r, i) => {
        if (r.cert_expires_at !== null) out.sample('vigil_check_certificate_expiry_timestamp_seconds', labelsOf[i]!, r.cert_expires_at / 1000)
      })
    },
  }
}
