import { describe, expect, test } from 'bun:test'
import { expectAccessMatrix, type MatrixRoute } from '../helpers/access-matrix'

const MANAGERS: ('owner' | 'admin')[] = ['owner', 'admin']
const HW = { cpu_percent: 10 }

/** Every JWT and key route of the service. */
const ROUTES: MatrixRoute[] = [
  { method: 'GET', path: '/v1/auth/me', kind: 'jwt' },
  { method: 'GET', path: '/v1/auth/memberships', kind: 'jwt' },
  { method: 'POST', path: '/v1/auth/switch', kind: 'jwt', body: { client_id: 'cli_x' } },
  // the browser session: switch takes the access token (and the cookie); the password change the token
  { method: 'POST', path: '/v1/auth/session/switch', kind: 'jwt', body: { client_id: 'cli_x' } },
  { method: 'POST', path: '/v1/auth/password', kind: 'jwt', body: { current_password: 'correct horse battery', new_password: 'another horse battery' } },
  { method: 'POST', path: '/v1/invitations/accept', kind: 'jwt', body: { token: 'vin_x' } },
  { method: 'POST', path: '/v1/auth/api-keys', kind: 'jwt', body: { name: 'k' }, roles: ['owner', 'admin'] },
  { method: 'GET', path: '/v1/auth/api-keys', kind: 'jwt' },
  { method: 'POST', path: '/v1/enrolments', kind: 'jwt', roles: ['owner', 'admin'] },
  { method: 'DELETE', path: '/v1/auth/api-keys/key_x', kind: 'jwt', roles: ['owner', 'admin'] },
  { method: 'GET', path: '/v1/clients/me', kind: 'jwt' },
  { method: 'PATCH', path: '/v1/clients/me', kind: 'jwt', body: { name: 'n' }, roles: ['owner', 'admin'] },
  { method: 'GET', path: '/v1/clients/me/members', kind: 'jwt' },
  { method: 'POST', path: '/v1/clients/me/members', kind: 'jwt', body: { email: 'x@example.test' }, roles: ['owner', 'admin'] },
  { method: 'PATCH', path: '/v1/clients/me/members/mem_x', kind: 'jwt', body: { role: 'member' }, roles: ['owner', 'admin'] },
  { method: 'DELETE', path: '/v1/clients/me/members/mem_x', kind: 'jwt', roles: ['owner', 'admin'] },
  { method: 'GET', path: '/v1/admin/stats', kind: 'jwt', operator: true },
  { method: 'GET', path: '/v1/admin/clients', kind: 'jwt', operator: true },
  { method: 'GET', path: '/v1/admin/instance', kind: 'jwt', operator: true },
  { method: 'GET', path: '/v1/admin/storage', kind: 'jwt', operator: true },
  { method: 'POST', path: '/v1/admin/storage/enforce', kind: 'jwt', operator: true },
  { method: 'PATCH', path: '/v1/admin/clients/cli_x', kind: 'jwt', body: { max_devices: 5 }, operator: true },
  { method: 'POST', path: '/v1/versions', kind: 'jwt', body: { platform: 'linux', version: '1.0.0' }, operator: true },
  { method: 'GET', path: '/v1/versions', kind: 'jwt', operator: true },
  { method: 'GET', path: '/v1/versions/linux', kind: 'key', scopes: ['versions:read', 'metrics:write'] },
  // devices
  { method: 'GET', path: '/v1/clients/me/devices', kind: 'jwt' },
  {
    method: 'POST',
    path: '/v1/clients/me/devices',
    kind: 'key',
    scopes: ['metrics:write', 'devices:write'],
    body: { hostname: 'h', os: 'linux', os_version: '6', arch: 'x64', fingerprint: 'f' },
  },
  { method: 'GET', path: '/v1/clients/me/devices/dev_x', kind: 'jwt' },
  { method: 'GET', path: '/v1/clients/me/fleet', kind: 'jwt' },
  { method: 'PATCH', path: '/v1/clients/me/devices/dev_x', kind: 'jwt', roles: MANAGERS, body: { name: 'x' } },
  { method: 'DELETE', path: '/v1/clients/me/devices/dev_x', kind: 'jwt', roles: MANAGERS },
  // metrics
  { method: 'POST', path: '/v1/metrics/hardware', kind: 'key', scopes: ['metrics:write'], body: HW },
  { method: 'POST', path: '/v1/metrics/network', kind: 'key', scopes: ['metrics:write'], body: { upload_mbps: 1 } },
  { method: 'POST', path: '/v1/metrics/batch', kind: 'key', scopes: ['metrics:write'], body: { hardware: HW } },
  {
    method: 'POST',
    path: '/v1/metrics/bulk',
    kind: 'key',
    scopes: ['metrics:write'],
    body: { items: [{ recorded_at: '2025-12-31T00:00:00Z', hardware: HW }] },
  },
  { method: 'GET', path: '/v1/metrics/hardware/dev_x', kind: 'jwt' },
  { method: 'GET', path: '/v1/metrics/network/dev_x', kind: 'jwt' },
  { method: 'GET', path: '/v1/metrics/hardware/dev_x/latest', kind: 'jwt' },
  { method: 'GET', path: '/v1/metrics/network/dev_x/latest', kind: 'jwt' },
  { method: 'GET', path: '/v1/metrics/summary/dev_x', kind: 'jwt' },
  { method: 'GET', path: '/v1/metrics/series/dev_x', kind: 'jwt' },
  // recommendations
  { method: 'POST', path: '/v1/recommendations', kind: 'key', scopes: ['recommendations:write'], body: { recommendation: 'r' } },
  { method: 'GET', path: '/v1/recommendations/dev_x', kind: 'jwt' },
  { method: 'GET', path: '/v1/recommendations/dev_x/latest', kind: 'jwt' },
  // billing
  { method: 'GET', path: '/v1/clients/me/billing', kind: 'jwt' },
  { method: 'GET', path: '/v1/clients/me/payments', kind: 'jwt' },
  { method: 'POST', path: '/v1/billing/checkout', kind: 'jwt', body: {}, roles: MANAGERS },
  { method: 'POST', path: '/v1/billing/portal', kind: 'jwt', roles: MANAGERS },
  { method: 'GET', path: '/v1/billing/subscription', kind: 'jwt' },
  { method: 'POST', path: '/v1/billing/sync', kind: 'jwt', roles: MANAGERS },
  // live stream
  { method: 'GET', path: '/v1/events', kind: 'jwt' },
  // ai
  { method: 'GET', path: '/v1/ai/config', kind: 'jwt' },
  { method: 'PATCH', path: '/v1/ai/config', kind: 'jwt', body: { enabled: true }, roles: MANAGERS },
  { method: 'PATCH', path: '/v1/ai/prompt', kind: 'jwt', body: { prompt: null }, roles: MANAGERS },
  { method: 'GET', path: '/v1/ai/usage', kind: 'jwt' },
  { method: 'POST', path: '/v1/ai/test', kind: 'jwt', roles: MANAGERS },
  { method: 'POST', path: '/v1/ai/generate/dev_x', kind: 'jwt', roles: MANAGERS },
  // channels
  { method: 'GET', path: '/v1/channels/kinds', kind: 'jwt' },
  { method: 'GET', path: '/v1/channels', kind: 'jwt' },
  { method: 'POST', path: '/v1/channels', kind: 'jwt', body: { name: 'n', kind: 'ntfy', config: { topic: 't' } }, roles: MANAGERS },
  { method: 'POST', path: '/v1/channels/import', kind: 'jwt', body: { url: 'ntfy://ntfy.sh/t' }, roles: MANAGERS },
  { method: 'GET', path: '/v1/channels/chn_x', kind: 'jwt' },
  { method: 'PATCH', path: '/v1/channels/chn_x', kind: 'jwt', body: { name: 'n' }, roles: MANAGERS },
  { method: 'DELETE', path: '/v1/channels/chn_x', kind: 'jwt', roles: MANAGERS },
  { method: 'POST', path: '/v1/channels/chn_x/test', kind: 'jwt', roles: MANAGERS },
  { method: 'POST', path: '/v1/channels/chn_x/export', kind: 'jwt', roles: MANAGERS },
  { method: 'GET', path: '/v1/channels/chn_x/deliveries', kind: 'jwt' },
  // alerts (acknowledge is open to members: whoever is on call takes the alert)
  { method: 'GET', path: '/v1/alerts/rules', kind: 'jwt' },
  { method: 'POST', path: '/v1/alerts/rules', kind: 'jwt', roles: MANAGERS, body: { name: 'x', metric: 'cpu_percent', threshold: 1 } },
  { method: 'GET', path: '/v1/alerts/rules/rul_x', kind: 'jwt' },
  { method: 'PATCH', path: '/v1/alerts/rules/rul_x', kind: 'jwt', roles: MANAGERS, body: {} },
  { method: 'DELETE', path: '/v1/alerts/rules/rul_x', kind: 'jwt', roles: MANAGERS },
  { method: 'POST', path: '/v1/alerts/rules/rul_x/enable', kind: 'jwt', roles: MANAGERS },
  { method: 'POST', path: '/v1/alerts/rules/rul_x/disable', kind: 'jwt', roles: MANAGERS },
  { method: 'PUT', path: '/v1/alerts/rules/rul_x/overrides/dev_x', kind: 'jwt', roles: MANAGERS, body: {} },
  { method: 'DELETE', path: '/v1/alerts/rules/rul_x/overrides/dev_x', kind: 'jwt', roles: MANAGERS },
  { method: 'GET', path: '/v1/alerts/defaults', kind: 'jwt' },
  { method: 'POST', path: '/v1/alerts/defaults/restore', kind: 'jwt', roles: MANAGERS },
  { method: 'GET', path: '/v1/alerts', kind: 'jwt' },
  { method: 'GET', path: '/v1/alerts/history', kind: 'jwt' },
  { method: 'GET', path: '/v1/alerts/settings', kind: 'jwt' },
  { method: 'PATCH', path: '/v1/alerts/settings', kind: 'jwt', roles: MANAGERS, body: {} },
  { method: 'GET', path: '/v1/alerts/silences', kind: 'jwt' },
  { method: 'POST', path: '/v1/alerts/silences', kind: 'jwt', roles: MANAGERS, body: { ends_at: '2030-01-01T00:00:00Z' } },
  { method: 'GET', path: '/v1/alerts/silences/sil_x', kind: 'jwt' },
  { method: 'PATCH', path: '/v1/alerts/silences/sil_x', kind: 'jwt', roles: MANAGERS, body: {} },
  { method: 'DELETE', path: '/v1/alerts/silences/sil_x', kind: 'jwt', roles: MANAGERS },
  { method: 'GET', path: '/v1/alerts/dependencies', kind: 'jwt' },
  { method: 'PUT', path: '/v1/alerts/dependencies/dev_x', kind: 'jwt', roles: MANAGERS, body: { parent_device_id: 'dev_y' } },
  { method: 'DELETE', path: '/v1/alerts/dependencies/dev_x', kind: 'jwt', roles: MANAGERS },
  { method: 'GET', path: '/v1/alerts/alr_x', kind: 'jwt' },
  { method: 'POST', path: '/v1/alerts/alr_x/acknowledge', kind: 'jwt', body: {} },
  { method: 'GET', path: '/v1/webhooks/event-types', kind: 'jwt' },
  { method: 'GET', path: '/v1/webhooks/endpoints', kind: 'jwt' },
  { method: 'POST', path: '/v1/webhooks/endpoints', kind: 'jwt', body: { url: 'https://hooks.example.com/', event_types: ['alert.firing'] }, roles: MANAGERS },
  { method: 'GET', path: '/v1/webhooks/endpoints/whe_x', kind: 'jwt' },
  { method: 'PATCH', path: '/v1/webhooks/endpoints/whe_x', kind: 'jwt', body: { description: 'd' }, roles: MANAGERS },
  { method: 'DELETE', path: '/v1/webhooks/endpoints/whe_x', kind: 'jwt', roles: MANAGERS },
  { method: 'POST', path: '/v1/webhooks/endpoints/whe_x/rotate-secret', kind: 'jwt', body: {}, roles: MANAGERS },
  { method: 'POST', path: '/v1/webhooks/endpoints/whe_x/test', kind: 'jwt', roles: MANAGERS },
  { method: 'GET', path: '/v1/webhooks/deliveries', kind: 'jwt' },
  { method: 'GET', path: '/v1/webhooks/deliveries/whd_x', kind: 'jwt' },
  { method: 'POST', path: '/v1/webhooks/deliveries/whd_x/resend', kind: 'jwt', roles: MANAGERS },
  { method: 'GET', path: '/v1/devices/dev_x/containers', kind: 'jwt' },
  { method: 'GET', path: '/v1/devices/dev_x/containers/ctr_x/series', kind: 'jwt' },
  { method: 'GET', path: '/v1/devices/dev_x/containers/ctr_x/events', kind: 'jwt' },
  { method: 'GET', path: '/v1/containers', kind: 'jwt' },
  { method: 'GET', path: '/v1/devices/dev_x/disks', kind: 'jwt' },
  { method: 'GET', path: '/v1/disks/attention', kind: 'jwt' },
  { method: 'GET', path: '/v1/checks', kind: 'jwt' },
  { method: 'POST', path: '/v1/checks', kind: 'jwt', body: { name: 'n', kind: 'tcp', settings: { host: 'example.com', port: 443 } }, roles: MANAGERS },
  { method: 'POST', path: '/v1/checks/test', kind: 'jwt', body: { kind: 'tcp', settings: { host: 'example.com', port: 443 } }, roles: MANAGERS },
  { method: 'GET', path: '/v1/checks/chk_x', kind: 'jwt' },
  { method: 'PATCH', path: '/v1/checks/chk_x', kind: 'jwt', body: { name: 'n' }, roles: MANAGERS },
  { method: 'DELETE', path: '/v1/checks/chk_x', kind: 'jwt', roles: MANAGERS },
  { method: 'POST', path: '/v1/checks/chk_x/rotate-token', kind: 'jwt', roles: MANAGERS },
  { method: 'GET', path: '/v1/checks/chk_x/results', kind: 'jwt' },
  { method: 'GET', path: '/v1/checks/chk_x/series', kind: 'jwt' },
  { method: 'GET', path: '/v1/checks/chk_x/incidents', kind: 'jwt' },
  { method: 'GET', path: '/v1/status-pages', kind: 'jwt' },
  { method: 'POST', path: '/v1/status-pages', kind: 'jwt', body: { slug: 'our-status', title: 'Status' }, roles: MANAGERS },
  { method: 'GET', path: '/v1/status-pages/stp_x', kind: 'jwt' },
  { method: 'PATCH', path: '/v1/status-pages/stp_x', kind: 'jwt', body: { title: 'Status' }, roles: MANAGERS },
  { method: 'DELETE', path: '/v1/status-pages/stp_x', kind: 'jwt', roles: MANAGERS },
  { method: 'GET', path: '/v1/status-pages/stp_x/notes', kind: 'jwt' },
  { method: 'POST', path: '/v1/status-pages/stp_x/notes', kind: 'jwt', body: { kind: 'incident', title: 'T', body: 'B' }, roles: MANAGERS },
  { method: 'GET', path: '/v1/status-pages/stp_x/notes/stn_x', kind: 'jwt' },
  { method: 'PATCH', path: '/v1/status-pages/stp_x/notes/stn_x', kind: 'jwt', body: { title: 'T' }, roles: MANAGERS },
  { method: 'DELETE', path: '/v1/status-pages/stp_x/notes/stn_x', kind: 'jwt', roles: MANAGERS },
  { method: 'POST', path: '/v1/status-pages/stp_x/notes/stn_x/updates', kind: 'jwt', body: { state: 'resolved', body: 'B' }, roles: MANAGERS },
  { method: 'GET', path: '/v1/agent/checks', kind: 'key', scopes: ['metrics:write'] },
]

describe('access matrix: every JWT and key route', () => {
  for (const route of ROUTES) test(`${route.method} ${route.path}`, () => expectAccessMatrix(route))
})

/** Routes that take no credential, on purpose. */
const PUBLIC = new Set([
  'POST /v1/auth/register',
  'POST /v1/auth/login',
  'POST /v1/auth/refresh',
  'POST /v1/auth/logout',
  // the browser session: the email and password, or the vigil_session cookie, is the credential
  'POST /v1/auth/session',
  'POST /v1/auth/session/refresh',
  'DELETE /v1/auth/session',
  'GET /v1/billing/plans',
  'POST /v1/billing/webhook',
  'GET /v1/ai/providers',
  // the enrolment token in the body is the credential
  'POST /v1/enrolments/redeem',
])

test('the matrix covers every /v1 route that is not public', async () => {
  const { testApp } = await import('../helpers/app')
  const t = testApp()
  const pattern = (path: string) => path.replace(/\/(dev|key|mem|cli|chn|rul|alr|sil|whe|whd|chk|stp|stn|ctr)_x\b/g, '/:param').replace(/\/linux$/, '/:param')
  const covered = new Set(ROUTES.map((r) => `${r.method} ${pattern(r.path)}`))
  const served = [...t.app.routes, ...t.directRoutes.map((r) => ({ method: r.method, path: r.path }))]
  expect(t.directRoutes.length).toBeGreaterThan(0)
  const missing = served
    .filter((r) => r.path.startsWith('/v1/'))
    .map((r) => `${r.method} ${r.path.replace(/:\w+/g, ':param')}`)
    .filter((r) => !PUBLIC.has(r) && !covered.has(r))
  expect(missing).toEqual([])
})
