import { Elysia, t } from 'elysia'
import { authGuards } from '../../http/auth'
import { jsonInput, queryInput } from '../../http/input'
import { routeErrors } from '../../http/openapi-errors'
import type { Authenticator } from '../../http/principal'
import { eventTypes, getDelivery, listDeliveries, resendDelivery, sendTest } from './webhooks.deliveries'
import {
  DeliveryDetail,
  DeliveryPage,
  DeliveryParams,
  DeliveryQuery,
  DeliveryResponse,
  EndpointCreate,
  EndpointParams,
  EndpointPatch,
  EndpointResponse,
  EventTypeList,
  RotateSecret,
} from './webhooks.model'
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoints, rotateSecret, updateEndpoint, type WebhooksDeps } from './webhooks.service'
import { SEND_NOW_PER_MINUTE } from '../deliveries/deliveries.limit'

const tags = ['webhooks']
const managers = { roles: ['owner' as const, 'admin' as const] }
const endpointCreate = jsonInput(EndpointCreate)
const endpointPatch = jsonInput(EndpointPatch)
const rotate = jsonInput(RotateSecret)
const deliveryQuery = queryInput(DeliveryQuery)
const SEND_NOW = `At most ${SEND_NOW_PER_MINUTE} test sends and resends per minute per account (channels and webhooks counted apart); beyond it 429 rate_limited with Retry-After.`

/** Outbound webhooks: any member reads; owners and admins change endpoints and resend. */
export function webhooksRoutes(deps: WebhooksDeps, auth: Authenticator) {
  return new Elysia({ prefix: '/v1/webhooks' })
    .use(authGuards(auth))
    .get('/event-types', () => eventTypes(), {
      user: true,
      response: { 200: EventTypeList },
      detail: { tags, summary: 'The event types an endpoint can subscribe to, and the payload version' },
    })
    .get('/endpoints', ({ user }) => listEndpoints(deps, user.clientId), {
      user: true,
      response: { 200: t.Array(EndpointResponse) },
      detail: { tags, summary: "The account's webhook endpoints (secret is always null here)" },
    })
    .post(
      '/endpoints',
      ({ user, body, set }) => {
        set.status = 201
        return createEndpoint(deps, user.clientId, endpointCreate.read(body))
      },
      {
        user: managers,
        response: { 201: EndpointResponse },
        detail: {
          ...routeErrors('unsafe_url', 'conflict'),
          ...endpointCreate.doc,
          tags,
          summary: 'Create a webhook endpoint (its whsec_ signing secret is shown once, in this answer)',
          description: `An account may have at most ${deps.maxEndpoints} webhook endpoints; beyond it 409 conflict.`,
        },
      },
    )
    .get('/endpoints/:endpoint_id', ({ user, params }) => getEndpoint(deps, user.clientId, params.endpoint_id), {
      user: true,
      params: EndpointParams,
      response: { 200: EndpointResponse },
      detail: { ...routeErrors('not_found'), tags, summary: 'One webhook endpoint' },
    })
    .patch('/endpoints/:endpoint_id', ({ user, params, body }) => updateEndpoint(deps, user.clientId, params.endpoint_id, endpointPatch.read(body)), {
      user: managers,
      params: EndpointParams,
      response: { 200: EndpointResponse },
      detail: {
        ...routeErrors('not_found', 'unsafe_url'),
        ...endpointPatch.doc,
        tags,
        summary: 'Change an endpoint; enabled: true re-enables a disabled one and resumes its held deliveries',
      },
    })
    .delete(
      '/endpoints/:endpoint_id',
      async ({ user, params, set }) => {
        await deleteEndpoint(deps, user.clientId, params.endpoint_id)
        set.status = 204
      },
      {
        user: managers,
        params: EndpointParams,
        detail: { ...routeErrors('not_found'), tags, summary: 'Delete an endpoint with its deliveries' },
      },
    )
    .post('/endpoints/:endpoint_id/rotate-secret', ({ user, params, body }) => rotateSecret(deps, user.clientId, params.endpoint_id, rotate.read(body)), {
      user: managers,
      params: EndpointParams,
      response: { 200: EndpointResponse },
      detail: {
        ...routeErrors('not_found'),
        ...rotate.doc,
        tags,
        summary: 'A new signing secret (shown once); the previous one keeps signing beside it for previous_valid_seconds',
      },
    })
    .post(
      '/endpoints/:endpoint_id/test',
      ({ user, params, set }) => {
        set.status = 202
        return sendTest(deps, user.clientId, params.endpoint_id)
      },
      {
        user: managers,
        params: EndpointParams,
        response: { 202: DeliveryResponse },
        detail: {
          ...routeErrors('not_found', 'conflict'),
          tags,
          summary: 'Send a webhook.test event to this endpoint now (follow it in its deliveries)',
          description: SEND_NOW,
        },
      },
    )
    .get('/deliveries', ({ user, request }) => listDeliveries(deps, user.clientId, deliveryQuery.read(request)), {
      user: true,
      response: { 200: DeliveryPage },
      detail: { ...routeErrors('not_found'), ...deliveryQuery.doc, tags, summary: 'Deliveries, newest first, by endpoint and status' },
    })
    .get('/deliveries/:delivery_id', ({ user, params }) => getDelivery(deps, user.clientId, params.delivery_id), {
      user: true,
      params: DeliveryParams,
      response: { 200: DeliveryDetail },
      detail: { ...routeErrors('not_found'), tags, summary: 'One delivery with its payload and every attempt' },
    })
    .post(
      '/deliveries/:delivery_id/resend',
      ({ user, params, set }) => {
        set.status = 202
        return resendDelivery(deps, user.clientId, params.delivery_id)
      },
      {
        user: managers,
        params: DeliveryParams,
        response: { 202: DeliveryResponse },
        detail: { ...routeErrors('not_found', 'conflict'), tags, summary: 'Send a delivery again now, with the same webhook-id', description: SEND_NOW },
      },
    )
}
