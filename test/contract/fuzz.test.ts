import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { ERROR_CODES } from '../../src/http/errors'
import {
  credentialFor,
  executableTarget,
  fillPath,
  operationsOf,
  seedWorld,
  validValue,
  type Answer,
  type Operation,
  type Target,
  type World,
} from '../helpers/contract'

/**
 * Generated requests against the compiled executable, over every operation of its own
 * /openapi.json: arbitrary path values, query strings and bodies (valid ones mutated, and
 * arbitrary JSON and text), with and without the right credential. Whatever comes, the answer
 * is never a 5xx the operation does not document, its status is one the operation documents,
 * and its body is the spec's shape: `detail` for 422, `error` with a known code otherwise.
 * VIGIL_FUZZ_RUNS sets the number of requests (default 3,000; the closing figures use 10,000).
 */
const RUNS = Number(process.env.VIGIL_FUZZ_RUNS ?? 3_000)

const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('', ' ', '0', '-1', '0x10', '1e309', '99999999999999999999', 'null', 'true', '[]', '{}', '%00', '../..', 'a'.repeat(5000)),
)
const number = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -1, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2))
const jsonish: fc.Arbitrary<unknown> = fc.oneof(fc.jsonValue({ maxDepth: 4 }), text, number, fc.constant(null))

function bodyFor(schema: any): fc.Arbitrary<{ raw: string } | undefined> {
  const base = schema ? (validValue(schema) as Record<string, unknown>) : {}
  const names = Object.keys(schema?.properties ?? {})
  const mutated = names.length
    ? fc.record({ name: fc.constantFrom(...names, 'extra_field'), value: jsonish }).map(({ name, value }) => JSON.stringify({ ...base, [name]: value }))
    : fc.constant(JSON.stringify(base))
  return fc.oneof(
    { weight: 4, arbitrary: mutated.map((raw) => ({ raw })) },
    { weight: 2, arbitrary: fc.constant({ raw: JSON.stringify(base) }) },
    { weight: 2, arbitrary: jsonish.map((v) => ({ raw: JSON.stringify(v) ?? 'null' })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('{', '', '{"a":', '\u0000', '['.repeat(200) + ']'.repeat(200), `${'{"a":'.repeat(100)}1${'}'.repeat(100)}`)
        .map((raw) => ({ raw })),
    },
    { weight: 1, arbitrary: fc.constant(undefined) },
  )
}

function queryFor(o: Operation): fc.Arbitrary<string> {
  const names = (o.op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name)
  const pair = fc.tuple(
    names.length ? fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: 8 })) : fc.string({ maxLength: 8 }),
    fc.oneof(text, number.map(String)),
  )
  return fc
    .array(pair, { maxLength: 4 })
    .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}` : ''))
}

interface Case {
  o: Operation
  path: string
  query: string
  body: { raw: string } | undefined
  credential: 'right' | 'none' | 'garbage' | 'other-kind'
  contentType: string | null
}

function caseFor(ops: Operation[], world: World): fc.Arbitrary<Case> {
  return fc.constantFrom(...ops).chain((o) => {
    const pathNames = [...o.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)
    // real ids only where nothing is destroyed with them
    // a segment of dots alone cannot be sent: clients remove it (`%2E` too) and the request
    // reaches another route, so no generated value is one
    const sendable = fc.string({ minLength: 1, maxLength: 30 }).filter((v) => v !== '.' && v !== '..')
    const pathValue = (name: string) => (o.method === 'DELETE' ? sendable : fc.oneof(fc.constant(world.ids[name] ?? 'x'), sendable))
    return fc.record({
      o: fc.constant(o),
      path: fc
        .tuple(...pathNames.map(pathValue))
        .map((values) => fillPath(o.path, world, Object.fromEntries(pathNames.map((n, i) => [n, values[i] as string])))),
      query: queryFor(o),
      body: o.method === 'GET' ? fc.constant(undefined) : bodyFor(o.op.requestBody?.content['application/json']?.schema),
      credential: fc.constantFrom('right', 'right', 'right', 'right', 'none', 'garbage', 'other-kind'),
      contentType: fc.constantFrom('application/json', 'application/json', 'application/json; charset=utf-8', 'text/plain', null),
    })
  })
}

function headersFor(c: Case, world: World): Record<string, string> {
  const right = credentialFor(c.o, world)
  const headers: Record<string, string> =
    c.credential === 'right'
      ? { ...right }
      : c.credential === 'garbage'
        ? { authorization: 'Bearer nonsense', 'x-api-key': 'vk_nonsense' }
        : c.credential === 'other-kind'
          ? right === world.key
            ? { ...world.jwt }
            : { ...world.key }
          : {}
  if (c.body && c.contentType) headers['content-type'] = c.contentType
  return headers
}

/** What is wrong with an answer, or null. */
function problemWith(o: Operation, res: Answer): string | null {
  if (!(String(res.status) in o.op.responses)) return `status ${res.status} is not documented`
  if (res.status < 400) return null
  if (!res.contentType?.includes('application/json')) return `error answer of type ${res.contentType}`
  const body = res.json
  if (res.status === 422 && Array.isArray(body?.detail)) {
    const bad = body.detail.find((d: any) => !Array.isArray(d.loc) || !d.loc.length || typeof d.msg !== 'string' || typeof d.type !== 'string')
    return bad ? `malformed detail entry ${JSON.stringify(bad)}` : null
  }
  const e = body?.error
  if (!e || typeof e.message !== 'string' || typeof e.param !== 'string' || typeof e.doc_url !== 'string')
    return `not the error body: ${res.text.slice(0, 200)}`
  const known = ERROR_CODES[e.code as keyof typeof ERROR_CODES]
  if (!known) return `unknown code ${e.code}`
  if (known.status !== res.status) return `code ${e.code} is ${known.status}, answered ${res.status}`
  return null
}

describe('fuzzing every operation of the executable', () => {
  let exe: Target
  let world: World
  let ops: Operation[]

  beforeAll(async () => {
    exe = await executableTarget()
    world = await seedWorld(exe)
    ops = operationsOf((await exe.send('GET', '/openapi.json')).json)
  }, 60_000)
  afterAll(async () => {
    await exe?.stop()
  })

  test(`${RUNS} generated requests: documented statuses only, no undocumented 5xx, every error body in the spec's shape`, async () => {
    const seen = new Map<string, Set<number>>()
    const problems: string[] = []
    await fc.assert(
      fc.asyncProperty(caseFor(ops, world), async (c) => {
        const res = await exe.send(c.o.method, c.path + c.query, { headers: headersFor(c, world), raw: c.body?.raw })
        const key = `${c.o.method} ${c.o.path}`
        seen.set(key, (seen.get(key) ?? new Set()).add(res.status))
        const problem = problemWith(c.o, res)
        if (problem) problems.push(`${key} (${c.path}${c.query.slice(0, 80)}): ${problem}`)
        return problem === null
      }),
      { numRuns: RUNS, endOnFailure: true },
    )
    if (process.env.VIGIL_FUZZ_REPORT) for (const [op, s] of seen) console.log(op, [...s].sort().join(' '))
    expect(problems).toEqual([])
    // every operation was reached, and none answered a 500
    expect([...seen.keys()].sort()).toEqual(ops.map((o) => `${o.method} ${o.path}`).sort())
    for (const [op, statuses] of seen) expect({ op, internal: statuses.has(500) }).toEqual({ op, internal: false })
  }, 600_000)
})
