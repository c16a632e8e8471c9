import { Elysia, t } from 'elysia'
import { authGuards } from '../../http/auth'
import type { Authenticator } from '../../http/principal'
import { routeErrors } from '../../http/openapi-errors'
import { jsonInput } from '../../http/input'
import { APIKeyCreate, APIKeyResponse, KeyParams } from './api-keys.model'
import { createApiKey, listApiKeys, revokeKey, type ApiKeysDeps } from './api-keys.service'

const tags = ['api-keys']
const managers = { roles: ['owner' as const, 'admin' as const] }
const keyCreate = jsonInput(APIKeyCreate)

/** Collector credentials, managed by the client's owners and admins; any member may list them. */
export function apiKeysRoutes(deps: ApiKeysDeps, auth: Authenticator) {
  return new Elysia({ prefix: '/v1/auth/api-keys' })
    .use(authGuards(auth))
    .post(
      '',
      async ({ user, body, set }) => {
        const key = await createApiKey(deps, user.clientId, keyCreate.read(body))
        set.status = 201
        return key
      },
      {
        user: managers,
        response: { 201: APIKeyResponse },
        detail: { ...routeErrors('invalid_parameter', 'not_found'), ...keyCreate.doc, tags, summary: 'Create an API key (the full key is shown once)' },
      },
    )
    .get('', ({ user }) => listApiKeys(deps, user.clientId), {
      user: true,
      response: { 200: t.Array(APIKeyResponse) },
      detail: { tags, summary: 'List the API keys of the client (api_key is always null)' },
    })
    .delete(
      '/:key_id',
      async ({ user, params, set }) => {
        await revokeKey(deps, user.clientId, params.key_id)
        set.status = 204
      },
      { user: managers, params: KeyParams, detail: { tags, summary: 'Revoke an API key (effective on the next request)' } },
    )
}
