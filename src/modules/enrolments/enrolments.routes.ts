import { Elysia } from 'elysia'
import { authGuards } from '../../http/auth'
import { jsonInput } from '../../http/input'
import { routeErrors } from '../../http/openapi-errors'
import type { Authenticator } from '../../http/principal'
import { EnrolmentCreate, EnrolmentCreated, EnrolmentRedeem, EnrolmentRedeemed } from './enrolments.model'
import { createEnrolment, redeemEnrolment, type EnrolmentsDeps } from './enrolments.service'

const tags = ['enrolments']
const createInput = jsonInput(EnrolmentCreate)
const redeemInput = jsonInput(EnrolmentRedeem)

/** One-line installs: an owner or admin asks for a token; the machine spends it for a device and a key. */
export function enrolmentsRoutes(deps: EnrolmentsDeps, auth: Authenticator) {
  return (
    new Elysia({ prefix: '/v1/enrolments' })
      .use(authGuards(auth))
      .post(
        '',
        ({ user, body, request, set }) => {
          set.status = 201
          return createEnrolment(deps, user.clientId, user.userId, createInput.read(body), new URL(request.url).origin)
        },
        {
          user: { roles: ['owner', 'admin'] },
          response: { 201: EnrolmentCreated },
          detail: {
            ...createInput.doc,
            tags,
            summary: 'A single-use enrolment token (60 minutes by default) and the one-line install command that spends it',
          },
        },
      )
      // no credential: the token is one; anonymous callers share the per-address rate limit
      .post('/redeem', ({ body }) => redeemEnrolment(deps, redeemInput.read(body)), {
        response: { 200: EnrolmentRedeemed },
        detail: {
          ...routeErrors('invalid_enrolment', 'device_limit_reached'),
          ...redeemInput.doc,
          tags,
          summary: 'Spend an enrolment token: registers the device (or finds it by fingerprint) and returns a key bound to it, shown once',
        },
      })
  )
}
