import { Elysia } from 'elysia'
import { authGuards } from '../../http/auth'
import type { Authenticator } from '../../http/principal'
import { jsonInput } from '../../http/input'
import { routeErrors } from '../../http/openapi-errors'
import { PlatformParams, VersionCreate, VersionResponse } from './versions.model'
import { latestVersion, publishVersion, type VersionsDeps } from './versions.service'

const tags = ['versions']
const versionCreate = jsonInput(VersionCreate)

/** Collector releases: the operator publishes, collectors ask for the latest of their platform. */
export function versionsRoutes(deps: VersionsDeps, auth: Authenticator) {
  return (
    new Elysia({ prefix: '/v1/versions' })
      .use(authGuards(auth))
      .post('', ({ user, body }) => publishVersion(deps, versionCreate.read(body), user.userId), {
        user: { operator: true },
        response: { 200: VersionResponse },
        detail: { ...routeErrors('conflict'), ...versionCreate.doc, tags, summary: 'Publish a collector version (operator only)' },
      })
      // A default-scoped collector key must be able to check for updates, hence metrics:write too.
      .get('/:platform', ({ params }) => latestVersion(deps, params.platform), {
        key: ['versions:read', 'metrics:write'],
        params: PlatformParams,
        response: { 200: VersionResponse },
        detail: { tags, summary: 'Latest collector version of a platform (semantic-version order)' },
      })
  )
}
