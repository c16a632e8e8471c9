import { Elysia } from 'elysia'
import { authGuards } from '../../http/auth'
import { queryInput } from '../../http/input'
import { routeErrors } from '../../http/openapi-errors'
import type { Authenticator } from '../../http/principal'
import {
  ContainerEvents,
  ContainerPage,
  ContainerParams,
  ContainerSeries,
  ContainerSeriesQuery,
  DeviceContainers,
  DeviceParams,
  EventsQuery,
  FleetQuery,
} from './containers.model'
import { containerSeries } from './containers.series'
import { containerEvents, deviceContainers, fleetContainers, type ContainersDeps } from './containers.service'

const tags = ['containers']
const seriesQuery = queryInput(ContainerSeriesQuery)
const eventsQuery = queryInput(EventsQuery)
const fleetQuery = queryInput(FleetQuery)
/** Built by the service in the declared shape: sent as is, not checked again against the schema (up to 500 containers) */
const json = (body: unknown) => new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } })

/** The portal's reads of containers: a device's, one container's series and history, the fleet's. */
export function containersRoutes(deps: ContainersDeps, auth: Authenticator) {
  return new Elysia({ prefix: '/v1' })
    .use(authGuards(auth))
    .get('/devices/:device_id/containers', async ({ user, params }) => json(await deviceContainers(deps, user.clientId, params.device_id)), {
      user: true,
      params: DeviceParams,
      response: { 200: DeviceContainers },
      detail: {
        ...routeErrors('not_found'),
        tags,
        summary: "A device's containers with their newest figures, state, health and uptime (gone ones last), and what its collector last said of the engine",
      },
    })
    .get(
      '/devices/:device_id/containers/:container_id/series',
      ({ user, params, request }) => containerSeries(deps, user.clientId, params.device_id, params.container_id, seriesQuery.read(request)),
      {
        user: true,
        params: ContainerParams,
        response: { 200: ContainerSeries },
        detail: {
          ...routeErrors('not_found'),
          ...seriesQuery.doc,
          tags,
          summary:
            "One container's series (CPU, memory, network, block I/O, PIDs) over a range, as columns: raw blocks up to 6 h, per-minute averages up to 3 days, hourly beyond",
        },
      },
    )
    .get(
      '/devices/:device_id/containers/:container_id/events',
      ({ user, params, request }) => {
        const q = eventsQuery.read(request)
        return containerEvents(deps, user.clientId, params.device_id, params.container_id, q.limit, q.offset)
      },
      {
        user: true,
        params: ContainerParams,
        response: { 200: ContainerEvents },
        detail: {
          ...routeErrors('not_found'),
          ...eventsQuery.doc,
          tags,
          summary: "One container's state history, newest first: created, started, stopped (with exit code), unhealthy, healthy, restarted, oom_killed, gone",
        },
      },
    )
    .get('/containers', async ({ user, request }) => json(await fleetContainers(deps, user.clientId, fleetQuery.read(request))), {
      user: true,
      response: { 200: ContainerPage },
      detail: {
        ...routeErrors('not_found'),
        ...fleetQuery.doc,
        tags,
        summary:
          "The account's containers on every device, filtered and paged; those needing attention (unhealthy, exited non-zero, restarting, OOM-killed) first by default",
      },
    })
}
