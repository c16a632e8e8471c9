import { Elysia } from 'elysia'
import { authGuards } from '../../http/auth'
import { routeErrors } from '../../http/openapi-errors'
import type { Authenticator } from '../../http/principal'
import { DeviceDisks, DeviceParams, DisksAttention } from './disks.model'
import { deviceDisks, disksAttention, type DisksDeps } from './disks.service'

const tags = ['disks']

/** The portal's reads of S.M.A.R.T. disk health. */
export function disksRoutes(deps: DisksDeps, auth: Authenticator) {
  return new Elysia({ prefix: '/v1' })
    .use(authGuards(auth))
    .get('/devices/:device_id/disks', ({ user, params }) => deviceDisks(deps, user.clientId, params.device_id), {
      user: true,
      params: DeviceParams,
      response: { 200: DeviceDisks },
      detail: {
        ...routeErrors('not_found'),
        tags,
        summary: "S.M.A.R.T. health of a device's disks from its newest report (at most every 30 minutes), with when it was collected or why it could not be",
      },
    })
    .get('/disks/attention', ({ user }) => disksAttention(deps, user.clientId), {
      user: true,
      response: { 200: DisksAttention },
      detail: { tags, summary: "The account's failing disks (the newest report of each device): the dashboard's “disk failing” hint" },
    })
}
