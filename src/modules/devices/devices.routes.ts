import { Elysia, t } from 'elysia'
import type { AppContext } from '../../context'
import { guards, JWT_AUTH, KEY_AUTH } from '../../http/guards'
import { routeErrors } from '../../http/openapi-errors'
import { jsonInput } from '../../http/input'
import { DeviceParams, DeviceRegister, DeviceResponse } from './devices.model'
import { deleteDevice, getDevice, listDevices, registerDevice } from './devices.service'

const tags = ['devices']
const deviceRegister = jsonInput(DeviceRegister)

export function devicesRoutes(ctx: AppContext) {
  return new Elysia({ prefix: '/v1/clients/me/devices' })
    .use(guards(ctx))
    .get('', ({ user }) => listDevices(ctx, user.clientId), {
      user: true,
      response: { 200: t.Array(DeviceResponse) },
      detail: { tags, security: JWT_AUTH, summary: "List the account's devices with last_seen_at and online status" },
    })
    .post(
      '',
      ({ key, body, set }) => {
        const { device } = registerDevice(ctx, key, deviceRegister.read(body))
        set.status = 201
        return device
      },
      {
        // metrics:write suffices, so a key with the spec's default scopes runs the whole collector flow
        key: ['metrics:write', 'devices:write'],
        response: { 201: DeviceResponse },
        detail: { ...routeErrors('device_limit_reached', 'device_mismatch'), ...deviceRegister.doc, tags, security: KEY_AUTH, summary: 'Register a device (idempotent per fingerprint)' },
      },
    )
    .get('/:device_id', ({ user, params }) => getDevice(ctx, user.clientId, params.device_id), {
      user: true,
      params: DeviceParams,
      response: { 200: DeviceResponse },
      detail: { tags, security: JWT_AUTH, summary: 'One device' },
    })
    .delete(
      '/:device_id',
      ({ user, params, set }) => {
        deleteDevice(ctx, user.clientId, params.device_id)
        // the keys bound to it were revoked with it: drop their cached principals
        ctx.apiKeys.invalidateClient(user.clientId)
        set.status = 204
      },
      {
        user: { roles: ['owner', 'admin'] },
        params: DeviceParams,
        detail: { tags, security: JWT_AUTH, summary: 'Delete a device with its metrics and recommendations' },
      },
    )
}
