/** Every table of the service, for drizzle and drizzle-kit. Each domain owns its own table file. */
export * from '../modules/clients/clients.table'
export * from '../modules/users/users.table'
export * from '../modules/api-keys/api-keys.table'
export * from '../modules/devices/devices.table'
export * from '../modules/metrics/metrics.table'
