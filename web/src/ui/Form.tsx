import { createContext, type ComponentChildren } from 'preact'
import { useContext, useRef, useState } from 'preact/hooks'
import { ApiError } from '../lib/api'
import { describeError, fieldErrors } from '../lib/errors'
import { Banner } from './Banner'
import { Button } from './Button'

interface FormState {
  errors: Record<string, string>
  busy: boolean
}

export const FormContext = createContext<FormState>({ errors: {}, busy: false })
export const useFormState = () => useContext(FormContext)

interface FormProps {
  /** does the work; an ApiError it throws is shown (banner, and each 422 `loc` on its field) */
  onSubmit: (data: FormData) => Promise<void> | void
  submitLabel?: string
  /** a second action beside the submit button (Cancel) */
  secondary?: ComponentChildren
  children: ComponentChildren
  class?: string
  /** names the form for screen readers */
  label?: string
}

/**
 * A form that calls an async submit: the button is busy meanwhile, a failure becomes a plain
 * sentence in a banner, a validation failure marks its fields (a Field whose `name` is the tail
 * of the error's `loc`) and focus moves to the first one.
 */
export function Form({ onSubmit, submitLabel = 'Save', secondary, children, class: cls, label }: FormProps) {
  const [state, setState] = useState<FormState>({ errors: {}, busy: false })
  const [error, setError] = useState<string | null>(null)
  const ref = useRef<HTMLFormElement>(null)

  const submit = async (e: Event) => {
    e.preventDefault()
    if (state.busy) return
    setState({ errors: {}, busy: true })
    setError(null)
    try {
      await onSubmit(new FormData(ref.current!))
      setState({ errors: {}, busy: false })
    } catch (err) {
      // only the fields this form has: a message for another one (a param the form does not show) goes to the banner
      const form = ref.current!
      const errors = Object.fromEntries(Object.entries(fieldErrors(err)).filter(([name]) => form.elements.namedItem(name)))
      setState({ errors, busy: false })
      const shownAtFields =
        Object.keys(errors).length > 0 && (!(err instanceof ApiError) || err.detail.length > 0 || (err.param !== null && err.param in errors))
      setError(shownAtFields ? 'Check the marked fields below.' : describeError(err))
      queueMicrotask(() => {
        const first = ref.current?.querySelector<HTMLElement>('[aria-invalid="true"]')
        ;(first ?? ref.current?.querySelector<HTMLElement>('.banner'))?.focus()
      })
    }
  }

  return (
    <FormContext.Provider value={state}>
      <form ref={ref} class={`form${cls ? ` ${cls}` : ''}`} onSubmit={submit} noValidate aria-label={label}>
        {error && (
          <Banner tone="error" focusable>
            {error}
          </Banner>
        )}
        {children}
        <div class="form-actions">
          <Button type="submit" variant="primary" loading={state.busy}>
            {submitLabel}
          </Button>
          {secondary}
        </div>
      </form>
    </FormContext.Provider>
  )
}
