import { t } from 'elysia'
import { Type } from '@sinclair/typebox'

export const HealthResponse = t.Object({
  status: t.Union([t.Literal('ok'), t.Literal('degraded')]),
  version: t.String(),
  uptime_seconds: Type.Integer(),
  /** own: somebody's own instance, no billing (the portal hides it); service: plans and billing apply (VIGIL_MODE) */
  mode: t.Union([t.Literal('own'), t.Literal('service')]),
  /** who may register: anyone, only with an invitation, or nobody (VIGIL_SIGNUP, else what the mode implies) */
  signup: t.Union([t.Literal('open'), t.Literal('invite'), t.Literal('closed')]),
  setup_token_required: t.Boolean({
    description:
      "true while the instance has no operator and a registration sent as this request was would need the setup token printed on the server's console (header x-setup-token): the service listens beyond loopback or trusts a proxy, or this request carries a forwarded header",
  }),
  database: t.Object({
    ok: t.Boolean(),
    // only when not ok: what is wrong, SQLite's or PostgreSQL's words for it (no password), and since when
    fault: t.Optional(t.Union([t.Literal('corrupt'), t.Literal('full'), t.Literal('io'), t.Literal('unavailable')])),
    message: t.Optional(t.String()),
    since: t.Optional(t.String()),
  }),
  storage: t.Object({
    warning: t.Nullable(
      t.String({
        description:
          'set while the disk holding the data dir is fuller than VIGIL_STORAGE_DISK_WARN (90% by default), or the data cannot fit VIGIL_STORAGE_BUDGET: what is wrong and what to do; null otherwise',
      }),
    ),
    /** samples moving into their long-lived form (docs/storage.md) */
    converting_devices: t.Optional(
      Type.Integer({
        description:
          'devices whose samples older than an hour are still being converted into compact blocks (after an upgrade: the conversion in progress); right after a start every device, until the first sealing run has looked; 0 when caught up; absent while the database does not answer',
      }),
    ),
  }),
})
