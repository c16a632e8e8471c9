import { Elysia } from 'elysia'
import { authGuards } from '../../http/auth'
import type { Authenticator } from '../../http/principal'
import { StorageReport } from './storage.model'
import { enforceBudget, measure, storageReport, type StorageDeps } from './storage.service'

const tags = ['admin']
const operator = { operator: true }

/** The operator's view of the space the data uses, and the budget applied on demand. */
export function storageRoutes(deps: StorageDeps, auth: Authenticator) {
  return new Elysia({ prefix: '/v1/admin' })
    .use(authGuards(auth))
    .get('/storage', () => storageReport(deps), {
      user: operator,
      response: { 200: StorageReport },
      detail: {
        tags,
        summary: 'Space per metric tier and the rest, the storage budget and the disk (the space per tier as last measured: hourly, and after each pruning)',
      },
    })
    .post(
      '/storage/enforce',
      async () => {
        await enforceBudget(deps)
        await measure(deps)
        return storageReport(deps)
      },
      {
        user: operator,
        response: { 200: StorageReport },
        detail: {
          tags,
          summary:
            'Measure the space per tier now and apply the storage budget at once, as its every-minute job would; answers when done (a scan of the whole database: seconds on a large one)',
        },
      },
    )
}
