import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { RuleIn, SilenceIn } from '../../src/modules/alerts/alerts.model'
import { scopedField } from '../../web/src/alerts/rule-form'
import { ApiError } from '../../web/src/lib/api'
import { fieldErrors, onFormFields } from '../../web/src/lib/errors'

const WEB = join(import.meta.dir, '../../web/src/alerts')
/** The input names a form renders (name="…" in its source). */
async function inputsOf(file: string): Promise<Set<string>> {
  const source = await Bun.file(join(WEB, file)).text()
  return new Set([...source.matchAll(/\bname="([a-z_]+)"/g)].map((m) => m[1]!))
}

/** Every path inside the body a 422 can name for a schema: each field, and inside the scope and lists. */
const pathsOf = (schema: { properties: Record<string, unknown> }) =>
  Object.keys(schema.properties).flatMap((k) => (k === 'scope' ? [[k], [k, 'type'], [k, 'value']] : k === 'channel_ids' ? [[k], [k, 0], [k, 3]] : [[k]]))

describe('a 422 lands on the form’s own input', () => {
  for (const [form, schema] of [
    ['RuleForm.tsx', RuleIn],
    ['SilenceForm.tsx', SilenceIn],
  ] as const) {
    for (const scope of ['all', 'tag', 'device'] as const) {
      test(`${form}, scope ${scope}: every path of the API's body names an input the form has`, async () => {
        const inputs = await inputsOf(form)
        for (const path of pathsOf(schema)) {
          const name = scopedField(path, scope)
          expect({ path, name, known: name !== null && inputs.has(name) }).toEqual({ path, name, known: true })
        }
      })
    }
  }

  test('scope.value is the tag box or the device list, by the scope chosen', () => {
    expect(scopedField(['scope', 'value'], 'device')).toBe('scope_device')
    expect(scopedField(['scope', 'value'], 'tag')).toBe('scope_tag')
    expect(scopedField(['scope', 'value'], 'all')).toBe('scope')
    expect(scopedField([0], 'all')).toBeNull()
  })

  test('onFormFields moves each loc (and the param) and keeps the messages; fieldErrors then finds the input', () => {
    const err = new ApiError(422, 'validation_error', 'invalid', null, [
      { loc: ['body', 'scope', 'value'], msg: 'no such device in this account', type: 'value_error' },
      { loc: ['body', 'channel_ids', 1], msg: 'unknown channel ch_x', type: 'value_error' },
      { loc: ['body', 'threshold'], msg: 'a threshold rule needs a threshold', type: 'value_error' },
    ])
    const moved = onFormFields(err, (p) => scopedField(p, 'device'))
    expect(fieldErrors(moved)).toEqual({
      scope_device: 'No such device in this account',
      channel_ids: 'Unknown channel ch_x',
      threshold: 'A threshold rule needs a threshold',
    })
    expect(moved).toBeInstanceOf(ApiError)
    expect((moved as ApiError).code).toBe('validation_error')
    const param = onFormFields(new ApiError(409, 'conflict', 'taken', 'scope.value'), (p) => scopedField(p, 'tag'))
    expect((param as ApiError).param).toBe('scope_tag')
    const other = new Error('boom')
    expect(onFormFields(other, () => 'x')).toBe(other)
  })
})
