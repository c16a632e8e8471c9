import type { ButtonHTMLAttributes, ComponentChildren } from 'preact'
import { Link } from '../lib/router'

export type ButtonVariant = 'primary' | 'secondary' | 'danger' | 'ghost'

type ButtonProps = Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'loading' | 'type'> & {
  variant?: ButtonVariant
  small?: boolean
  /** busy: disabled, and says so to screen readers */
  loading?: boolean
  type?: 'button' | 'submit' | 'reset'
  disabled?: boolean
  children?: ComponentChildren
}

export const buttonClass = (variant: ButtonVariant = 'secondary', small = false) => `btn btn-${variant}${small ? ' btn-small' : ''}`

export function Button({ variant = 'secondary', small, loading, type = 'button', disabled, class: cls, children, ...rest }: ButtonProps) {
  return (
    <button
      type={type}
      class={`${buttonClass(variant, small)}${cls ? ` ${cls}` : ''}`}
      disabled={disabled || loading}
      aria-busy={loading || undefined}
      {...rest}
    >
      {loading && <span class="spinner" aria-hidden="true" />}
      {children}
    </button>
  )
}

/** A link that looks like a button (navigation, not an action). */
export function ButtonLink({
  href,
  variant = 'secondary',
  small,
  children,
}: {
  href: string
  variant?: ButtonVariant
  small?: boolean
  children: ComponentChildren
}) {
  return (
    <Link href={href} class={buttonClass(variant, small)}>
      {children}
    </Link>
  )
}
