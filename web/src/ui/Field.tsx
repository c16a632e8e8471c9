import type { ComponentChildren, InputHTMLAttributes } from 'preact'
import { useFormState } from './Form'

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'label' | 'type' | 'name'> & {
  /** the input's name; a 422 whose `loc` ends with it shows its message here */
  name: string
  label: ComponentChildren
  hint?: ComponentChildren
  /** overrides the message the surrounding Form found for this name */
  error?: string | null
  type?: string
  value?: string
  required?: boolean
  /** says "(optional)" after the label: fields are expected unless marked so */
  optional?: boolean
  autocomplete?: string
  /** renders this control instead of an <input> (a <select>, a <textarea>): it gets id and aria props via `control` */
  control?: (props: { id: string; name: string; 'aria-invalid'?: 'true'; 'aria-describedby'?: string }) => ComponentChildren
}

/** A labelled input with its hint and its error, tied together for screen readers. */
export function Field({ name, label, hint, error, control, optional, class: cls, id, ...input }: InputProps) {
  const form = useFormState()
  const message = error === undefined ? form.errors[name] : error
  const fid = (id as string | undefined) ?? `field-${name.replace(/[^a-zA-Z0-9_-]/g, '-')}`
  const describedBy = [hint ? `${fid}-hint` : '', message ? `${fid}-error` : ''].filter(Boolean).join(' ') || undefined
  const aria = { 'aria-invalid': message ? ('true' as const) : undefined, 'aria-describedby': describedBy }
  return (
    <div class={`field${message ? ' field-invalid' : ''}${cls ? ` ${cls}` : ''}`}>
      <label for={fid}>
        {label}
        {optional && <span class="optional"> (optional)</span>}
      </label>
      {control ? (
        control({ id: fid, name, ...aria })
      ) : (
        <input {...({ id: fid, name, type: 'text', ...input, ...aria } as InputHTMLAttributes<HTMLInputElement>)} />
      )}
      {hint && (
        <p class="hint" id={`${fid}-hint`}>
          {hint}
        </p>
      )}
      {message && (
        <p class="error" id={`${fid}-error`}>
          {message}
        </p>
      )}
    </div>
  )
}

/**
 * The error of a group of inputs with no Field of their own (radios, checkboxes): a 422 whose
 * `loc` names the group shows here, in the group, instead of only as the form's banner.
 */
export function GroupError({ name }: { name: string }) {
  const message = useFormState().errors[name]
  if (!message) return null
  return (
    <p class="error" id={`field-${name.replace(/[^a-zA-Z0-9_-]/g, '-')}-error`} role="alert">
      {message}
    </p>
  )
}
