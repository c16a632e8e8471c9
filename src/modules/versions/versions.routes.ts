import { Elysia } from 'elysia'
import { authGuards } from '../../http/auth'
import type { Authenticator } from '../../http/principal'
import { jsonInput, queryInput } from '../../http/input'
import { routeErrors } from '../../http/openapi-errors'
import { PlatformParams, VersionCreate, VersionList, VersionResponse, VersionsQuery } from './versions.model'
import { latestVersion, listVersions, publishVersion, type VersionsDeps } from './versions.service'

const tags = ['versions']
const versionCreate = jsonInput(VersionCreate)
const versionsQuery = queryInput(VersionsQuery)

/** Collector releases: the operator publishes, collectors ask for the latest of their platform. */
export function versionsRoutes(deps: VersionsDeps, auth: Authenticator) {
  return (
    new Elysia({ prefix: '/v1/versions' })
      .use(authGuards(auth))
      .post('', ({ user, body, request }) => publishVersion(deps, versionCreate.read(body), user.userId, new URL(request.url).origin), {
        user: { operator: true },
        response: { 200: VersionResponse },
        detail: {
          ...routeErrors('conflict'),
          ...versionCreate.doc,
          tags,
          summary:
            "Publish a collector version (operator only); without sha256 it is computed for the hub's own download, else the version is not installed automatically",
        },
      })
      .get('', ({ request }) => listVersions(deps, versionsQuery.read(request)), {
        user: { operator: true },
        response: { 200: VersionList },
        detail: { ...versionsQuery.doc, tags, summary: 'Every published collector version, newest first (operator only; limit 1..200, default 50)' },
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
