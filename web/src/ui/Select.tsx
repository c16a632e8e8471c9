/**
 * A <select> that starts on `selected` and then belongs to the person: the choice is marked on
 * its option (not through `value`, which Preact would put back on every render of the form).
 */
export function Select({
  options,
  selected,
  ...p
}: {
  id: string
  name: string
  options: { value: string; label: string }[]
  selected?: string | null
  onChange?: (e: Event) => void
  disabled?: boolean
  'aria-invalid'?: 'true'
  'aria-describedby'?: string
}) {
  return (
    <select {...p}>
      {options.map((o) => (
        <option key={o.value} value={o.value} selected={o.value === (selected ?? '')}>
          {o.label}
        </option>
      ))}
    </select>
  )
}
