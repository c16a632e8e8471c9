import { Elysia, t } from 'elysia'
import { authGuards } from '../../http/auth'
import { jsonInput, queryInput } from '../../http/input'
import { routeErrors } from '../../http/openapi-errors'
import type { Authenticator } from '../../http/principal'
import { deliveriesPage, sendTest } from './channels.delivery'
import { KIND_CATALOGUE } from './channels.kind-catalogue'
import {
  ChannelCreate,
  ChannelParams,
  ChannelPatch,
  ChannelView,
  DeliveryPage,
  DeliveryQuery,
  KindList,
  ShoutrrrExport,
  ShoutrrrImport,
  TestResult,
} from './channels.model'
import { createChannel, deleteChannel, getChannel, listChannels, updateChannel, type ChannelsDeps } from './channels.service'
import { exportShoutrrr, importShoutrrr } from './channels.shoutrrr'
import { SEND_NOW_PER_MINUTE } from '../deliveries/deliveries.limit'

const create = jsonInput(ChannelCreate)
const patch = jsonInput(ChannelPatch)
const shoutrrrImport = jsonInput(ShoutrrrImport)
const deliveryQuery = queryInput(DeliveryQuery)

export function channelsRoutes(deps: ChannelsDeps, auth: Authenticator, siteUrl: string) {
  const tags = ['channels']
  const managers = { roles: ['owner', 'admin'] as ('owner' | 'admin')[] }
  const configErrors = routeErrors('invalid_channel_config', 'unsafe_url', 'conflict')
  const cap = `An account may have at most ${deps.maxChannels} channels; beyond it 409 conflict.`
  return new Elysia({ prefix: '/v1/channels' })
    .use(authGuards(auth))
    .get('/kinds', () => KIND_CATALOGUE, {
      user: true,
      response: { 200: KindList },
      detail: { tags, summary: "Channel kinds with each kind's fields (name, type, required, secret, default) for the form" },
    })
    .get('', async ({ user }) => ({ items: await listChannels(deps, user.clientId) }), {
      user: true,
      response: { 200: t.Object({ items: t.Array(ChannelView) }) },
      detail: { tags, summary: "The client's notification channels (secrets masked)" },
    })
    .post(
      '',
      async ({ user, body, set }) => {
        set.status = 201
        return createChannel(deps, user.clientId, create.read(body))
      },
      {
        user: managers,
        response: { 201: ChannelView },
        detail: { ...configErrors, ...create.doc, tags, summary: 'Create a channel (owner/admin); secret fields are write-only', description: cap },
      },
    )
    .post(
      '/import',
      async ({ user, body, set }) => {
        set.status = 201
        return importShoutrrr(deps, user.clientId, shoutrrrImport.read(body))
      },
      {
        user: managers,
        response: { 201: ChannelView },
        detail: {
          ...routeErrors('invalid_shoutrrr_url', 'invalid_channel_config', 'unsafe_url', 'conflict'),
          ...shoutrrrImport.doc,
          tags,
          description: cap,
          summary: 'Create a channel from a Shoutrrr URL (ntfy, gotify, discord, slack, telegram, teams, pushover, smtp, generic; owner/admin)',
        },
      },
    )
    .get('/:channel_id', ({ user, params }) => getChannel(deps, user.clientId, params.channel_id), {
      user: true,
      params: ChannelParams,
      response: { 200: ChannelView },
      detail: { tags, summary: 'One channel (secrets masked)' },
    })
    .patch('/:channel_id', ({ user, params, body }) => updateChannel(deps, user.clientId, params.channel_id, patch.read(body)), {
      user: managers,
      params: ChannelParams,
      response: { 200: ChannelView },
      detail: {
        ...configErrors,
        ...patch.doc,
        tags,
        summary: 'Change name, enabled, min_severity or settings (only the fields given; a secret left out keeps its value; owner/admin)',
      },
    })
    .delete(
      '/:channel_id',
      async ({ user, params, set }) => {
        await deleteChannel(deps, user.clientId, params.channel_id)
        set.status = 204
      },
      {
        user: managers,
        params: ChannelParams,
        detail: { tags, summary: 'Delete a channel with its delivery log (owner/admin)' },
      },
    )
    .post('/:channel_id/test', ({ user, params }) => sendTest(deps, user.clientId, params.channel_id, siteUrl), {
      user: managers,
      params: ChannelParams,
      response: { 200: TestResult },
      detail: {
        ...routeErrors('not_found'),
        tags,
        summary: 'Send a test notification now and answer how it went (logged with the deliveries; owner/admin)',
        description: `At most ${SEND_NOW_PER_MINUTE} test sends per minute per account; beyond it 429 rate_limited with Retry-After. The attempt has the same deadline as any delivery (10 s).`,
      },
    })
    .post('/:channel_id/export', ({ user, params }) => exportShoutrrr(deps, user.clientId, params.channel_id, user.userId), {
      user: managers,
      params: ChannelParams,
      response: { 200: ShoutrrrExport },
      detail: {
        ...routeErrors('invalid_shoutrrr_url', 'conflict'),
        tags,
        summary: 'The channel as a Shoutrrr URL, secrets included (owner/admin; the only answer that shows secrets)',
      },
    })
    .get('/:channel_id/deliveries', ({ user, params, request }) => deliveriesPage(deps, user.clientId, params.channel_id, deliveryQuery.read(request)), {
      user: true,
      params: ChannelParams,
      response: { 200: DeliveryPage },
      detail: { ...deliveryQuery.doc, tags, summary: 'The delivery log of a channel, newest first, each with its attempts' },
    })
}
