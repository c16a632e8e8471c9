/**
 * The container and disk shapes the portal reads, from the server's TypeBox models (type-only:
 * nothing of the server enters the bundle), so a field renamed there fails the portal's typecheck.
 */
import type { Static } from '@sinclair/typebox'
import type * as Containers from '../../../src/modules/containers/containers.model'
import type * as Disks from '../../../src/modules/disks/disks.model'

/** One container as GET /v1/devices/{id}/containers and GET /v1/containers give it */
export type Container = Containers.Container
/** GET /v1/devices/{id}/containers */
export type DeviceContainers = Static<typeof Containers.DeviceContainers>
export type Engine = Static<typeof Containers.Engine>
/** GET /v1/containers */
export type ContainerPage = Containers.ContainerPage
/** GET /v1/devices/{id}/containers/{container_id}/series */
export type ContainerSeries = Containers.ContainerSeries
/** GET /v1/devices/{id}/containers/{container_id}/events */
export type ContainerEvents = Static<typeof Containers.ContainerEvents>
export type ContainerEvent = Static<typeof Containers.ContainerEvent>
/** the states the hub shows: the engine's, and `gone` */
export type ShownState = Container['state']
export type Health = Container['health']
/** the fleet list's orders (a leading - sorts descending) */
export type FleetSort = Containers.FleetQuery['sort']

/** GET /v1/devices/{id}/disks */
export type DeviceDisks = Static<typeof Disks.DeviceDisks>
export type Disk = Disks.Disk
/** GET /v1/disks/attention */
export type DisksAttention = Static<typeof Disks.DisksAttention>
