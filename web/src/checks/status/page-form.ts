import type { Group, Item, PageCreate } from '../types'

/** An item as the editor holds it: the API's item with its choices (the key stays as the server made it). */
export type ItemDraft = Omit<Item, 'key'> & { key?: string }
export interface GroupDraft {
  name: string
  items: ItemDraft[]
}

/** What the editor can pick for an item: every check and device of the account, by kind and name. */
export interface Choice {
  value: string
  label: string
}

/** "check:chk_1" ↔ { type, id }: one select picks both. */
export const choiceValue = (i: Pick<Item, 'type' | 'id'>) => `${i.type}:${i.id}`
export function parseChoice(v: string): Pick<Item, 'type' | 'id'> | null {
  const m = /^(check|device):(.+)$/.exec(v)
  return m ? { type: m[1] as Item['type'], id: m[2]! } : null
}

export const newItem = (choice: string): ItemDraft | null => {
  const c = parseChoice(choice)
  return c ? { ...c, label: null, show_name: false, show_response_times: false } : null
}

/** The groups as the API takes them: a blank label is no label; keys the server made are kept. */
export function groupsBody(groups: GroupDraft[]): NonNullable<PageCreate['groups']> {
  return groups.map((g) => ({
    name: g.name.trim(),
    items: g.items.map((i) => ({
      type: i.type,
      id: i.id,
      ...(i.key ? { key: i.key } : {}),
      label: i.label?.trim() ? i.label.trim() : null,
      show_name: i.show_name,
      show_response_times: i.type === 'check' && i.show_response_times,
    })),
  }))
}

export const draftGroups = (groups: Group[]): GroupDraft[] => groups.map((g) => ({ name: g.name, items: g.items.map((i) => ({ ...i })) }))

/** The slug a title suggests: lower case, words joined by "-", within the API's 3 to 64 characters. */
export function slugFrom(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/g, '')
}

/** A 422 inside the groups (['groups', 0, 'items', 2, 'id']) is shown once, above the groups. */
export function pageInputFor(path: (string | number)[]): string | null {
  const [head] = path
  if (head === 'groups') return 'groups'
  return typeof head === 'string' ? head : null
}
