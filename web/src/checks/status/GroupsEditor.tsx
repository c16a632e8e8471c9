import { Button, GroupError } from '../../ui'
import { Select } from '../../ui/Select'
import { choiceValue, newItem, type Choice, type GroupDraft, type ItemDraft } from './page-form'

/**
 * The page's groups of checks and devices, edited in place: rename a group, add or remove items,
 * give each a public label and choose what it shows. Nothing is saved until the form is.
 */
export function GroupsEditor({ groups, choices, onChange }: { groups: GroupDraft[]; choices: Choice[]; onChange: (groups: GroupDraft[]) => void }) {
  const setGroup = (gi: number, g: GroupDraft) => onChange(groups.map((old, i) => (i === gi ? g : old)))
  const setItem = (gi: number, ii: number, item: Partial<ItemDraft>) =>
    setGroup(gi, { ...groups[gi]!, items: groups[gi]!.items.map((old, i) => (i === ii ? { ...old, ...item } : old)) })
  const nameOf = new Map(choices.map((c) => [c.value, c.label]))
  return (
    <fieldset class="ck-fieldset">
      <legend>Groups</legend>
      <GroupError name="groups" />
      <div class="ck-groups">
        {groups.map((g, gi) => (
          <section key={gi} class="ck-group" aria-label={`Group ${gi + 1}`}>
            <div class="field">
              <label for={`group-${gi}-name`}>Group name</label>
              <input id={`group-${gi}-name`} value={g.name} maxLength={100} onInput={(e) => setGroup(gi, { ...g, name: e.currentTarget.value })} />
            </div>
            {g.items.map((it, ii) => {
              const id = `group-${gi}-item-${ii}`
              const what = nameOf.get(choiceValue(it)) ?? `${it.type} ${it.id}`
              return (
                <div key={choiceValue(it)} class="ck-item">
                  <p class="ck-item-what">
                    <strong>{what}</strong>
                  </p>
                  <div class="field">
                    <label for={`${id}-label`}>Public name</label>
                    <input
                      id={`${id}-label`}
                      value={it.label ?? ''}
                      maxLength={100}
                      placeholder={it.show_name ? 'its own name' : 'a neutral name'}
                      onInput={(e) => setItem(gi, ii, { label: e.currentTarget.value })}
                    />
                  </div>
                  <label class="check">
                    <input type="checkbox" checked={it.show_name} onChange={(e) => setItem(gi, ii, { show_name: e.currentTarget.checked })} />
                    Show its own name
                  </label>
                  {it.type === 'check' ? (
                    <label class="check">
                      <input
                        type="checkbox"
                        checked={it.show_response_times}
                        onChange={(e) => setItem(gi, ii, { show_response_times: e.currentTarget.checked })}
                      />
                      Show response times
                    </label>
                  ) : (
                    <span />
                  )}
                  <Button small variant="ghost" aria-label={`Remove ${what}`} onClick={() => setGroup(gi, { ...g, items: g.items.filter((_, i) => i !== ii) })}>
                    Remove
                  </Button>
                </div>
              )
            })}
            <div class="ck-group-actions">
              <div class="field">
                <label for={`group-${gi}-add`}>Add a check or device</label>
                <Select
                  id={`group-${gi}-add`}
                  name={`group-${gi}-add`}
                  options={[{ value: '', label: 'Choose…' }, ...choices.filter((c) => !g.items.some((i) => choiceValue(i) === c.value))]}
                  selected=""
                  onChange={(e) => {
                    const select = e.currentTarget as HTMLSelectElement
                    const item = newItem(select.value)
                    select.value = ''
                    if (item) setGroup(gi, { ...g, items: [...g.items, item] })
                  }}
                />
              </div>
              <Button small variant="ghost" onClick={() => onChange(groups.filter((_, i) => i !== gi))}>
                Remove the group
              </Button>
            </div>
          </section>
        ))}
      </div>
      <div>
        <Button small onClick={() => onChange([...groups, { name: groups.length ? `Group ${groups.length + 1}` : 'Services', items: [] }])}>
          Add a group
        </Button>
      </div>
    </fieldset>
  )
}
