/**
 * A tenant for HTTP tests of the fleet's routes on PostgreSQL (`pgTestAppLifecycle`): made by
 * `createTenant` in the app's PostgreSQL database, and its collector key made through the API.
 */
import type { SQL } from 'bun'
import type { TestApp } from './app'
import { createTenant } from './fixtures'

export async function pgTenant(t: TestApp & { sql: SQL }, opts: Parameters<typeof createTenant>[1] = {}) {
  const tenant = await createTenant(t, opts)
  const key = await t.request('POST', '/v1/auth/api-keys', { body: { name: 'collector' }, headers: tenant.userHeaders })
  if (key.status !== 201) throw new Error(`the tenant's key was not made: ${key.status}`)
  return { ...tenant, apiKey: key.body.api_key as string, keyId: key.body.key_id as string, keyHeaders: { 'x-api-key': key.body.api_key as string } }
}
