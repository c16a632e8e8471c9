/**
 * A tenant for HTTP tests of the fleet's routes on PostgreSQL (`pgTestAppLifecycle`): made by
 * `createTenant`, its client row also put in the PostgreSQL database (where the devices, keys,
 * enrolments and billing rows that name it live; a no-op once the clients store is there too),
 * and its collector key made through the API, so it is stored where the app keeps keys.
 */
import type { SQL } from 'bun'
import type { TestApp } from './app'
import { createTenant } from './fixtures'

export async function pgTenant(t: TestApp & { sql: SQL }, opts: Parameters<typeof createTenant>[1] = {}) {
  const tenant = await createTenant(t, opts)
  const c = t.db.sqlite
    .query<Record<string, string | number | null>, [string]>(
      'SELECT id, name, plan_type, subscription_status, max_devices, max_users, created_at, updated_at FROM clients WHERE id = ?',
    )
    .get(tenant.clientId)!
  await t.sql`INSERT INTO clients (id, name, plan_type, subscription_status, max_devices, max_users, created_at, updated_at)
    VALUES (${c.id}, ${c.name}, ${c.plan_type}, ${c.subscription_status}, ${c.max_devices}, ${c.max_users}, ${c.created_at}, ${c.updated_at})
    ON CONFLICT DO NOTHING`
  const key = await t.request('POST', '/v1/auth/api-keys', { body: { name: 'collector' }, headers: tenant.userHeaders })
  if (key.status !== 201) throw new Error(`the tenant's key was not made: ${key.status}`)
  return { ...tenant, apiKey: key.body.api_key as string, keyId: key.body.key_id as string, keyHeaders: { 'x-api-key': key.body.api_key as string } }
}
