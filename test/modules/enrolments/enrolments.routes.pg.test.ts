import { describe, expect, test } from 'bun:test'
import { pgTestAppLifecycle } from '../../helpers/app.pg'
import { pgTenant } from '../../helpers/fleet.pg'

/** The install one-liner's token, made and redeemed on a hub whose stores are on PostgreSQL. */
const pgApp = pgTestAppLifecycle()
const machine = (fingerprint: string, token: string) => ({
  token,
  hostname: `host-${fingerprint}`,
  os: 'linux',
  os_version: 'Debian 12',
  arch: 'x86_64',
  fingerprint,
})

describe('enrolments on PostgreSQL', () => {
  test.skipIf(pgApp.skip)(
    `a token redeemed registers the device and a key bound to it; spent, it is refused; redeemed at once, one wins ${pgApp.skipReason}`,
    async () => {
      const t = await pgApp.make()
      const a = await pgTenant(t, { maxDevices: 5 })
      const token = async () => {
        const r = await t.request('POST', '/v1/enrolments', { body: {}, headers: a.userHeaders })
        expect(r.status).toBe(201)
        return r.body.token as string
      }
      const redeem = (fp: string, tok: string) => t.request('POST', '/v1/enrolments/redeem', { body: machine(fp, tok) })

      const first = await token()
      const [stored] = await t.sql`SELECT token_hash FROM enrolments`
      expect(stored.token_hash).not.toContain(first)
      const r = await redeem('fp-1', first)
      expect(r.status).toBe(200)
      expect(r.body.client_id).toBe(a.clientId)
      const [key] = await t.sql`SELECT device_id, is_active FROM api_keys WHERE id = ${r.body.key_id}`
      expect(key).toEqual({ device_id: r.body.device_id, is_active: true })
      const [spent] = await t.sql`SELECT device_id FROM enrolments WHERE used_at IS NOT NULL`
      expect(spent.device_id).toBe(r.body.device_id)
      const headers = { 'x-api-key': r.body.api_key as string }
      const own = await t.request('POST', '/v1/clients/me/devices', { body: { ...machine('fp-1', ''), token: undefined }, headers })
      expect([own.status, own.body.device_id]).toEqual([201, r.body.device_id])
      expect((await t.request('POST', '/v1/clients/me/devices', { body: { ...machine('fp-2', ''), token: undefined }, headers })).status).toBe(403)
      const listed = await t.request('GET', '/v1/clients/me/devices', { headers: a.userHeaders })
      expect(listed.body.map((d: { device_id: string }) => d.device_id)).toEqual([r.body.device_id])

      const again = await redeem('fp-2', first)
      expect(again.status).toBe(401)
      expect(again.body.error.code).toBe('invalid_enrolment')

      const raced = await token()
      const all = await Promise.all(Array.from({ length: 6 }, (_, i) => redeem(`fp-r${i}`, raced)))
      expect(all.filter((x) => x.status === 200)).toHaveLength(1)
      expect(all.filter((x) => x.status === 401)).toHaveLength(5)
      const [n] = await t.sql`SELECT count(*)::int AS n FROM devices WHERE client_id = ${a.clientId}`
      expect(n.n).toBe(2)
    },
  )

  test.skipIf(pgApp.skip)(`past the client's device limit a redemption is refused and its token stays good ${pgApp.skipReason}`, async () => {
    const t = await pgApp.make()
    const a = await pgTenant(t, { maxDevices: 1 })
    const tok = async () => (await t.request('POST', '/v1/enrolments', { body: {}, headers: a.userHeaders })).body.token as string
    const [one, two] = [await tok(), await tok()]
    expect((await t.request('POST', '/v1/enrolments/redeem', { body: machine('fp-1', one) })).status).toBe(200)
    const over = await t.request('POST', '/v1/enrolments/redeem', { body: machine('fp-2', two) })
    expect(over.status).toBe(403)
    expect(over.body.error.code).toBe('device_limit_reached')
    const [unspent] = await t.sql`SELECT count(*)::int AS n FROM enrolments WHERE used_at IS NULL`
    expect(unspent.n).toBe(1)
    const [keys] = await t.sql`SELECT count(*)::int AS n FROM api_keys WHERE device_id IS NOT NULL`
    expect(keys.n).toBe(1)
    // re-enrolling the machine already there is no new device: the limit does not stand in its way
    expect((await t.request('POST', '/v1/enrolments/redeem', { body: machine('fp-1', two) })).status).toBe(200)
  })
})
