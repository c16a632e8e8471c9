import { describe, test } from 'bun:test'
import { expectAccessMatrix, type MatrixRoute } from '../helpers/access-matrix'

/** Every JWT and key route of the accounts domains (users, api-keys, clients, admin, versions). */
const ROUTES: MatrixRoute[] = [
  { method: 'GET', path: '/v1/auth/me', kind: 'jwt' },
  { method: 'GET', path: '/v1/auth/memberships', kind: 'jwt' },
  { method: 'POST', path: '/v1/auth/switch', kind: 'jwt', body: { client_id: 'cli_x' } },
  { method: 'POST', path: '/v1/auth/api-keys', kind: 'jwt', body: { name: 'k' }, roles: ['owner', 'admin'] },
  { method: 'GET', path: '/v1/auth/api-keys', kind: 'jwt' },
  { method: 'DELETE', path: '/v1/auth/api-keys/key_x', kind: 'jwt', roles: ['owner', 'admin'] },
  { method: 'GET', path: '/v1/clients/me', kind: 'jwt' },
  { method: 'PATCH', path: '/v1/clients/me', kind: 'jwt', body: { name: 'n' }, roles: ['owner', 'admin'] },
  { method: 'GET', path: '/v1/clients/me/members', kind: 'jwt' },
  { method: 'POST', path: '/v1/clients/me/members', kind: 'jwt', body: { email: 'x@example.test' }, roles: ['owner', 'admin'] },
  { method: 'PATCH', path: '/v1/clients/me/members/mem_x', kind: 'jwt', body: { role: 'member' }, roles: ['owner', 'admin'] },
  { method: 'DELETE', path: '/v1/clients/me/members/mem_x', kind: 'jwt', roles: ['owner', 'admin'] },
  { method: 'GET', path: '/v1/admin/stats', kind: 'jwt', operator: true },
  { method: 'GET', path: '/v1/admin/clients', kind: 'jwt', operator: true },
  { method: 'PATCH', path: '/v1/admin/clients/cli_x', kind: 'jwt', body: { max_devices: 5 }, operator: true },
  { method: 'POST', path: '/v1/versions', kind: 'jwt', body: { platform: 'linux', version: '1.0.0' }, operator: true },
  { method: 'GET', path: '/v1/versions/linux', kind: 'key', scopes: ['versions:read', 'metrics:write'] },
]

describe('access matrix: accounts routes', () => {
  for (const route of ROUTES) test(`${route.method} ${route.path}`, () => expectAccessMatrix(route))
})
