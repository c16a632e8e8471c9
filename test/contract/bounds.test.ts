import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  credentialFor,
  executableTarget,
  fillPath,
  operationsOf,
  seedWorld,
  sourceTarget,
  validValue,
  type Operation,
  type Target,
  type World,
} from '../helpers/contract'

/**
 * Every bound and type /openapi.json declares, probed from outside it: values just past each
 * bound, non-numbers, huge numbers, hex, wrong types and malformed bodies must answer 422 with
 * the `detail` list, and the compiled executable must answer exactly as the source does.
 */

interface Probe {
  what: string
  path: string
  opts: { headers: Record<string, string>; raw: string } | { headers: Record<string, string> }
}

const INTEGER_NOISE = ['abc', '', '1.5', '0x10', '1e3', ' 1', '+1', '99999999999999999999', '9223372036854775807', 'Infinity', 'NaN']
const DATE_NOISE = ['yesterday', '2024-13-01T00:00:00Z', '2024-02-30T00:00:00Z', '0000-01-01T00:00:00Z', '-000001-01-01T00:00:00Z']

function allowedTypes(schema: any): Set<string> {
  if (Array.isArray(schema?.anyOf)) return new Set(schema.anyOf.flatMap((s: any) => [...allowedTypes(s)]))
  const types = Array.isArray(schema?.type) ? schema.type : [schema?.type]
  return new Set(types.flatMap((t: string) => (t === 'integer' ? ['integer'] : t === 'number' ? ['integer', 'number'] : [t])))
}

/** Values of JSON types the schema does not take. */
function wrongTypes(schema: any): unknown[] {
  const allowed = allowedTypes(schema)
  const samples: [string, unknown][] = [
    ['string', 'not-this'],
    ['integer', 5],
    ['number', 1.5],
    ['boolean', true],
    ['null', null],
    ['array', [1]],
    ['object', { a: 1 }],
  ]
  const out = samples.filter(([type]) => !allowed.has(type)).map(([, v]) => v)
  if (allowed.has('integer') && !allowed.has('number')) out.push(1.5, '5')
  if (allowed.has('number')) out.push('5')
  return out
}

/** the schema itself, or the member of a nullable union that is not null */
const nonNull = (schema: any) => (Array.isArray(schema?.anyOf) ? schema.anyOf.find((m: any) => m.type !== 'null') : schema)

/** Values of the right type just past the schema's bounds. */
function pastBounds(schema: any): unknown[] {
  const s = nonNull(schema)
  if (!s) return []
  const out: unknown[] = []
  if (s.minimum !== undefined) out.push(s.minimum - 1)
  if (s.maximum !== undefined) out.push(s.maximum + 1)
  if (s.minLength) out.push('x'.repeat(s.minLength - 1))
  if (s.maxLength !== undefined) out.push('x'.repeat(s.maxLength + 1))
  if (s.format === 'date-time') out.push(...DATE_NOISE)
  if (s.format === 'email') out.push('not-an-email')
  if (s.maxItems !== undefined) out.push(Array.from({ length: s.maxItems + 1 }, () => validValue(s.items)))
  if (s.maxProperties !== undefined) out.push(Object.fromEntries(Array.from({ length: s.maxProperties + 1 }, (_, i) => [`k${i}`, 1])))
  return out
}

type Path = (string | number)[]

/** The fields nested in a body's fields (object properties, array items), with the path to each. */
function nestedFields(schema: any, path: Path = [], depth = 0): { path: Path; schema: any }[] {
  const s = nonNull(schema)
  if (!s || depth > 4) return []
  if (s.type === 'array' && s.items) return nestedFields(s.items, [...path, 0], depth + 1)
  if (s.type !== 'object') return []
  return Object.entries<any>(s.properties ?? {}).flatMap(([name, prop]) => [
    { path: [...path, name], schema: prop },
    ...nestedFields(prop, [...path, name], depth + 1),
  ])
}

/** A valid value of `schema` with `bad` at `path` (each level around it as small as it may be). */
function place(schema: any, path: Path, bad: unknown): unknown {
  if (!path.length) return bad
  const s = nonNull(schema)
  const [head, ...rest] = path
  if (typeof head === 'number') return [place(s.items, rest, bad)]
  return { ...(validValue(s) as Record<string, unknown>), [head!]: place(s.properties[head!], rest, bad) }
}

function queryProbes(o: Operation, world: World): Probe[] {
  const headers = credentialFor(o, world)
  const path = fillPath(o.path, world)
  return (o.op.parameters ?? [])
    .filter((p) => p.in === 'query')
    .flatMap((p) => {
      const s = Array.isArray(p.schema.anyOf) ? p.schema.anyOf.find((m: any) => m.type !== 'null') : p.schema
      const values = [...(s.type === 'integer' ? INTEGER_NOISE : []), ...pastBounds(p.schema).map(String)]
      return values.map((v) => ({ what: `query ${p.name}=${JSON.stringify(v)}`, path: `${path}?${p.name}=${encodeURIComponent(v)}`, opts: { headers } }))
    })
}

function bodyProbes(o: Operation, world: World): Probe[] {
  const schema = o.op.requestBody?.content['application/json']?.schema
  if (!schema) return []
  const headers = { ...credentialFor(o, world), 'content-type': 'application/json' }
  const path = fillPath(o.path, world)
  const raw = (what: string, text: string): Probe => ({ what, path, opts: { headers, raw: text } })
  const probes = ['[]', '[1,2]', '"x"', '5', 'null', 'true', '{', '{"a":1,}'].map((text) => raw(`body ${text}`, text))
  const base = validValue(schema) as Record<string, unknown>
  for (const [name, prop] of Object.entries<any>(schema.properties ?? {})) {
    for (const bad of [...wrongTypes(prop), ...pastBounds(prop)])
      probes.push(raw(`body ${name}=${JSON.stringify(bad)?.slice(0, 40)}`, JSON.stringify({ ...base, [name]: bad })))
  }
  // inside the nested parts: each inner field's bounds
  for (const { path, schema: inner } of nestedFields(schema)) {
    if (path.length < 2) continue
    for (const bad of pastBounds(inner))
      probes.push(raw(`body ${path.join('.')}=${JSON.stringify(bad)?.slice(0, 40)}`, JSON.stringify(place(schema, path, bad))))
  }
  for (const name of schema.required ?? []) {
    if (schema.properties?.[name]?.default !== undefined) continue // an absent field takes its default
    const { [name]: _gone, ...rest } = base
    probes.push(raw(`body without ${name}`, JSON.stringify(rest)))
  }
  if (schema.additionalProperties === false) probes.push(raw('body with an undeclared property', JSON.stringify({ ...base, not_a_field: 1 })))
  return probes
}

/** Where a request's strings and lists declare no bound (a format or a fixed set counts as one). */
function unbounded(schema: any, where: string, depth = 0): string[] {
  if (!schema || typeof schema !== 'object' || depth > 8) return []
  if (Array.isArray(schema.anyOf)) return schema.anyOf.flatMap((m: any) => unbounded(m, where, depth + 1))
  const out: string[] = []
  if (schema.type === 'string' && schema.maxLength === undefined && !schema.format && !schema.enum && schema.const === undefined) out.push(where)
  if (schema.type === 'array') {
    if (schema.maxItems === undefined) out.push(`${where} (list)`)
    out.push(...unbounded(schema.items, `${where}[]`, depth + 1))
  }
  for (const [name, prop] of Object.entries<any>(schema.type === 'object' ? (schema.properties ?? {}) : {}))
    out.push(...unbounded(prop, `${where}.${name}`, depth + 1))
  return out
}

/** The API's parts whose every input is bounded: devices, samples, recommendations, keys, the account, billing, AI settings, the live stream. */
const BOUNDED_PREFIXES = [
  '/v1/clients/me',
  '/v1/invitations',
  '/v1/metrics',
  '/v1/recommendations',
  '/v1/auth/api-keys',
  '/v1/billing',
  '/v1/ai',
  '/v1/events',
  '/v1/status-pages',
]

/** What must be equal between the two targets: ids and clocks differ, the verdict may not. */
function verdict(a: { status: number; json: any }) {
  return { status: a.status, detail: a.json?.detail, code: a.json?.error?.code, param: a.json?.error?.param }
}

describe('declared bounds and types, on the executable and the source', () => {
  let exe: Target
  let src: Target
  let worlds: { exe: World; src: World }
  let ops: Operation[]

  beforeAll(async () => {
    exe = await executableTarget()
    src = sourceTarget()
    worlds = { exe: await seedWorld(exe), src: await seedWorld(src) }
    ops = operationsOf((await exe.send('GET', '/openapi.json')).json)
  }, 60_000)
  afterAll(async () => {
    await exe?.stop()
    await src?.stop()
  })

  test('both targets publish the same contract', async () => {
    const fromSource = (await src.send('GET', '/openapi.json')).json
    const fromExe = (await exe.send('GET', '/openapi.json')).json
    expect(fromExe).toEqual(fromSource)
  })

  test('every string and list in a request of the bounded parts declares its bound', () => {
    const found: string[] = []
    let checked = 0
    for (const o of ops) {
      if (!BOUNDED_PREFIXES.some((p) => o.path.startsWith(p))) continue
      checked++
      for (const p of o.op.parameters ?? []) found.push(...unbounded(p.schema, `${o.method} ${o.path} ${p.in} ${p.name}`))
      found.push(...unbounded(o.op.requestBody?.content['application/json']?.schema, `${o.method} ${o.path} body`))
    }
    expect(checked).toBeGreaterThan(30)
    expect(found).toEqual([])
  })

  test('every value outside a query bound or type is 422 with a detail entry naming the parameter', async () => {
    let probed = 0
    for (const o of ops) {
      for (const [target, world] of [
        [exe, worlds.exe],
        [src, worlds.src],
      ] as const) {
        for (const p of queryProbes(o, world)) {
          const res = await target.send(o.method, p.path, p.opts)
          const label = `${target.name} ${o.method} ${o.path} ${p.what}`
          expect({ label, status: res.status }).toEqual({ label, status: 422 })
          expect(res.json.detail[0].loc[0]).toBe('query')
          probed++
        }
      }
    }
    expect(probed).toBeGreaterThan(100)
  }, 60_000)

  test('every malformed body, wrong type, missing field and value past a bound is 422 with the detail list', async () => {
    let probed = 0
    for (const o of ops) {
      if (o.method === 'DELETE') continue
      for (const [target, world] of [
        [exe, worlds.exe],
        [src, worlds.src],
      ] as const) {
        for (const p of bodyProbes(o, world)) {
          const res = await target.send(o.method, p.path, p.opts)
          const label = `${target.name} ${o.method} ${o.path} ${p.what}`
          expect({ label, status: res.status }).toEqual({ label, status: 422 })
          expect(res.json.detail.length).toBeGreaterThan(0)
          for (const d of res.json.detail) expect(d.loc[0]).toBe('body')
          probed++
        }
      }
    }
    expect(probed).toBeGreaterThan(300)
  }, 60_000)

  test('the executable answers every probe exactly as the source does', async () => {
    for (const o of ops) {
      const pairs = [queryProbes(o, worlds.exe), o.method === 'DELETE' ? [] : bodyProbes(o, worlds.exe)].flat()
      const srcProbes = [queryProbes(o, worlds.src), o.method === 'DELETE' ? [] : bodyProbes(o, worlds.src)].flat()
      for (let i = 0; i < pairs.length; i++) {
        const a = await exe.send(o.method, pairs[i]!.path, pairs[i]!.opts)
        const b = await src.send(o.method, srcProbes[i]!.path, srcProbes[i]!.opts)
        const label = `${o.method} ${o.path} ${pairs[i]!.what}`
        expect({ label, ...verdict(a) }).toEqual({ label, ...verdict(b) })
      }
    }
  }, 60_000)
})
