import { Elysia, t } from 'elysia'
import { authGuards } from '../../http/auth'
import { routeErrors } from '../../http/openapi-errors'
import type { Authenticator } from '../../http/principal'
import { jsonInput } from '../../http/input'
import { DeviceParams, DevicePatch, DeviceRegister, DeviceResponse } from './devices.model'
import { deleteDevice, getDevice, listDevices, registerDevice, updateDevice, type DevicesDeps } from './devices.service'

const tags = ['devices']
const deviceRegister = jsonInput(DeviceRegister)
const devicePatch = jsonInput(DevicePatch)

export function devicesRoutes(deps: DevicesDeps, auth: Authenticator) {
  return new Elysia({ prefix: '/v1/clients/me/devices' })
    .use(authGuards(auth))
    .get('', ({ user }) => listDevices(deps, user.clientId), {
      user: true,
      response: { 200: t.Array(DeviceResponse) },
      detail: { tags, summary: "List the account's devices with last_seen_at and online status" },
    })
    .post(
      '',
      async ({ key, body, set }) => {
        const { device } = await registerDevice(deps, key, deviceRegister.read(body))
        set.status = 201
        return device
      },
      {
        // metrics:write suffices, so a key with the spec's default scopes runs the whole collector flow
        key: ['metrics:write', 'devices:write'],
        response: { 201: DeviceResponse },
        detail: {
          ...routeErrors('device_limit_reached', 'device_mismatch'),
          ...deviceRegister.doc,
          tags,
          summary: 'Register a device (idempotent per fingerprint)',
        },
      },
    )
    .get('/:device_id', ({ user, params }) => getDevice(deps, user.clientId, params.device_id), {
      user: true,
      params: DeviceParams,
      response: { 200: DeviceResponse },
      detail: { tags, summary: 'One device' },
    })
    .patch('/:device_id', ({ user, params, body }) => updateDevice(deps, user.clientId, params.device_id, devicePatch.read(body)), {
      user: { roles: ['owner', 'admin'] },
      params: DeviceParams,
      response: { 200: DeviceResponse },
      detail: { ...devicePatch.doc, tags, summary: 'Name or tag a device (owner or admin); a field left out is unchanged' },
    })
    .delete(
      '/:device_id',
      async ({ user, params, set }) => {
        await deleteDevice(deps, user.clientId, params.device_id)
        set.status = 204
      },
      {
        user: { roles: ['owner', 'admin'] },
        params: DeviceParams,
        detail: { tags, summary: 'Delete a device with its metrics and recommendations' },
      },
    )
}
