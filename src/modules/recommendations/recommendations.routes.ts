import { Elysia } from 'elysia'
import { authGuards } from '../../http/auth'
import type { Authenticator } from '../../http/principal'
import { routeErrors } from '../../http/openapi-errors'
import { jsonInput, queryInput } from '../../http/input'
import { createFromCollector, latestForDevice, listForDevice, type RecommendationsDeps } from './recommendations.service'
import { DeviceParams, LatestQuery, ListQuery, Recommendation, RecommendationIn, RecommendationList, RecommendationPage } from './recommendations.model'

const recommendationIn = jsonInput(RecommendationIn)
const listQuery = queryInput(ListQuery)
const latestQuery = queryInput(LatestQuery)

export function recommendationsRoutes(deps: RecommendationsDeps, auth: Authenticator) {
  const tags = ['recommendations']
  return new Elysia({ prefix: '/v1/recommendations' })
    .use(authGuards(auth))
    .post(
      '',
      ({ key, body, headers, set }) => {
        set.status = 201
        return createFromCollector(deps, key, recommendationIn.read(body), headers['x-device-id'] || null)
      },
      {
        key: 'recommendations:write',
        response: { 201: Recommendation },
        detail: {
          ...routeErrors('not_found', 'device_mismatch', 'device_required'),
          ...recommendationIn.doc,
          tags,
          summary: "Submit a collector's recommendation (device: the key's bound device, else device_id or x-device-id, else the client's only device)",
        },
      },
    )
    .get('/:device_id', ({ user, params, request }) => listForDevice(deps, user.clientId, params.device_id, listQuery.read(request)), {
      user: true,
      params: DeviceParams,
      response: { 200: RecommendationPage },
      detail: { ...routeErrors('invalid_parameter'), ...listQuery.doc, tags, summary: "A device's recommendations, newest first" },
    })
    .get('/:device_id/latest', ({ user, params, request }) => latestForDevice(deps, user.clientId, params.device_id, latestQuery.read(request).limit), {
      user: true,
      params: DeviceParams,
      response: { 200: RecommendationList },
      detail: { ...latestQuery.doc, tags, summary: "A device's newest recommendations" },
    })
}
