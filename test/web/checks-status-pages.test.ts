import { describe, expect, test } from 'bun:test'
import { choiceValue, draftGroups, groupsBody, newItem, pageInputFor, parseChoice, slugFrom } from '../../web/src/checks/status/page-form'

describe('the status page editor', () => {
  test('suggests an address from the title within the API’s pattern', () => {
    expect(slugFrom('Acme Cloud — Status!')).toBe('acme-cloud-status')
    expect(slugFrom('  Éclair  ')).toBe('eclair')
    expect(slugFrom('x'.repeat(70))).toHaveLength(64)
    expect(slugFrom(`${'a'.repeat(63)} b`)).toBe('a'.repeat(63))
  })

  test('one select picks the type and the id of an item', () => {
    expect(parseChoice(choiceValue({ type: 'device', id: 'dev_1' }))).toEqual({ type: 'device', id: 'dev_1' })
    expect(parseChoice('')).toBeNull()
    expect(newItem('check:chk_1')).toEqual({ type: 'check', id: 'chk_1', label: null, show_name: false, show_response_times: false })
  })

  test('sends the groups with their keys kept, blank labels as none, response times only for checks', () => {
    const groups = draftGroups([
      {
        name: ' Web ',
        items: [
          { type: 'check', id: 'chk_1', key: 'website', label: '  ', show_name: true, show_response_times: true },
          { type: 'device', id: 'dev_1', key: 'nas', label: 'Storage', show_name: false, show_response_times: false },
        ],
      },
    ])
    groups[0]!.items.push({ type: 'device', id: 'dev_2', label: null, show_name: false, show_response_times: true })
    expect(groupsBody(groups)).toEqual([
      {
        name: 'Web',
        items: [
          { type: 'check', id: 'chk_1', key: 'website', label: null, show_name: true, show_response_times: true },
          { type: 'device', id: 'dev_1', key: 'nas', label: 'Storage', show_name: false, show_response_times: false },
          { type: 'device', id: 'dev_2', label: null, show_name: false, show_response_times: false },
        ],
      },
    ])
  })

  test('shows a 422 anywhere inside the groups above the groups', () => {
    expect(pageInputFor(['groups', 0, 'items', 2, 'id'])).toBe('groups')
    expect(pageInputFor(['custom_domain'])).toBe('custom_domain')
  })
})
