import { expect, test } from 'bun:test'
import { openDatabase } from '../../../src/db/connection'
import { migrate } from '../../../src/db/migrate'
import { AppError } from '../../../src/http/errors'
import { createContainersIngest } from '../../../src/modules/containers/containers.ingest'
import { sqliteContainers } from '../../../src/modules/containers/containers.store'
import { block, container } from './fixtures'

test('a block for a device deleted meanwhile is a 404 (not_found), not a 500', async () => {
  const db = openDatabase(':memory:')
  migrate(db.sqlite, Date.now())
  const ingest = createContainersIngest({ store: sqliteContainers(db.sqlite) })
  const err = await ingest
    .submit({ clientId: 'cli_x', deviceId: 'dev_deleted', deviceSeq: 999, ts: Date.now(), sent: true, block: block([container('web')]) })
    .catch((e: unknown) => e)
  expect(err).toBeInstanceOf(AppError)
  expect((err as AppError).code).toBe('not_found')
})
