import { Type, type TSchema } from '@sinclair/typebox'
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'
import { AppError } from '../../http/errors'

/**
 * The shape of a webhook event, checked after its signature and before anything reads it.
 * A valid signature only proves who sent the bytes: a hand-made event signed with the secret
 * (or a future API version) may lack `type`, carry a string where an object belongs, and so on,
 * and the handlers would then fail on a NOT NULL column or a binding (a 500, and Stripe retrying
 * for days). Only the fields the handlers read or store are checked, each with the types Stripe
 * documents; anything else in the event is free.
 */
const Id = Type.String({ minLength: 1, maxLength: 255 })
const opt = <T extends TSchema>(s: T) => Type.Optional(Type.Union([Type.Null(), s]))
/** an expandable reference: an id, or the expanded object with its id */
const Ref = opt(Type.Union([Id, Type.Object({ id: Id })]))
const Str = opt(Type.String())
const Int = opt(Type.Integer())
/** Stripe metadata values are strings */
const Metadata = opt(Type.Record(Type.String(), Type.String()))

const Envelope = Type.Object({
  id: Id,
  type: Type.String({ minLength: 1, maxLength: 255 }),
  created: Type.Integer({ minimum: 0 }),
  data: Type.Object({ object: Type.Object({}) }),
})

const CheckoutSession = Type.Object({ mode: Str, client_reference_id: Str, metadata: Metadata, customer: Ref, subscription: Ref })

const Price = Type.Object({ id: Str, lookup_key: Str, unit_amount: Int, currency: Str, recurring: opt(Type.Object({ interval: Str })) })
const Subscription = Type.Object({
  id: Id,
  customer: Ref,
  metadata: Metadata,
  status: Str,
  currency: Str,
  cancel_at_period_end: opt(Type.Boolean()),
  current_period_start: Int,
  current_period_end: Int,
  items: opt(Type.Object({ data: Type.Optional(Type.Array(Type.Object({ price: opt(Price), current_period_start: Int, current_period_end: Int }))) })),
})

const Period = opt(Type.Object({ start: Int, end: Int }))
const Invoice = Type.Object({
  id: Id,
  customer: Ref,
  status: Str,
  attempt_count: Int,
  // stored in NOT NULL columns
  amount_paid: Type.Integer(),
  amount_due: Type.Integer(),
  currency: Type.String({ minLength: 1 }),
  description: Str,
  lines: opt(Type.Object({ data: Type.Optional(Type.Array(Type.Object({ description: Str, period: Period }))) })),
  period_start: Int,
  period_end: Int,
  hosted_invoice_url: Str,
  invoice_pdf: Str,
  status_transitions: opt(Type.Object({ paid_at: Int })),
  created: Int,
  subscription: Ref,
  parent: opt(Type.Object({ subscription_details: opt(Type.Object({ subscription: Ref, metadata: Metadata })) })),
})

const OBJECT_SHAPES: Record<string, TSchema> = {
  'checkout.session.completed': CheckoutSession,
  'customer.subscription.created': Subscription,
  'customer.subscription.updated': Subscription,
  'customer.subscription.deleted': Subscription,
  'invoice.paid': Invoice,
  'invoice.payment_failed': Invoice,
}

// compiled on the first event: webhooks are rare, start-up memory is not
const compiled = new Map<TSchema, TypeCheck<TSchema>>()
const checkerOf = (schema: TSchema) => compiled.get(schema) ?? compiled.set(schema, TypeCompiler.Compile(schema)).get(schema)!

/** Throws 400 bad_request naming the first field (e.g. `data.object.id`) that has the wrong shape. */
export function assertEventShape(event: unknown): void {
  refuse(checkerOf(Envelope), event, '')
  const { type, data } = event as { type: string; data: { object: unknown } }
  const shape = OBJECT_SHAPES[type]
  if (shape) refuse(checkerOf(shape), data.object, 'data.object')
}

function refuse(check: TypeCheck<TSchema>, value: unknown, prefix: string) {
  if (check.Check(value)) return
  const first = check.Errors(value).First()
  const field = [prefix, ...(first?.path.split('/').filter(Boolean) ?? [])].filter(Boolean).join('.')
  throw new AppError('bad_request', `The event is not a well-formed Stripe event: ${field || 'the event'}: ${first?.message ?? 'invalid'}`, field || 'event')
}
