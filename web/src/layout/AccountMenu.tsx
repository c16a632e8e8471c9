import { useEffect, useRef, useState } from 'preact/hooks'
import { describeError } from '../lib/errors'
import { Link, location } from '../lib/router'
import { currentMembership, me, memberships, signOut, switchClient } from '../lib/session'
import { setTheme, theme, type ThemeChoice } from '../lib/theme'
import { Icon, type IconName } from '../ui/Icon'

const THEMES: { value: ThemeChoice; label: string; icon: IconName }[] = [
  { value: 'system', label: 'System', icon: 'monitor' },
  { value: 'light', label: 'Light', icon: 'sun' },
  { value: 'dark', label: 'Dark', icon: 'moon' },
]

/** Who is signed in, the account acted for, the theme, the password and signing out (a disclosure, not an ARIA menu). */
export function AccountMenu() {
  const [open, setOpen] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const ref = useRef<HTMLDivElement>(null)
  const button = useRef<HTMLButtonElement>(null)
  const path = location.value.path
  useEffect(() => setOpen(false), [path])
  useEffect(() => {
    if (!open) return
    const outside = (e: MouseEvent) => {
      if (!ref.current?.contains(e.target as Node)) setOpen(false)
    }
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        setOpen(false)
        button.current?.focus()
      }
    }
    document.addEventListener('mousedown', outside)
    document.addEventListener('keydown', onKey)
    return () => {
      document.removeEventListener('mousedown', outside)
      document.removeEventListener('keydown', onKey)
    }
  }, [open])

  const user = me.value
  if (!user) return null
  const others = memberships.value.filter((m) => !m.current && m.status === 'active')
  const current = currentMembership.value
  const switchTo = async (clientId: string) => {
    setError(null)
    try {
      await switchClient(clientId)
      setOpen(false)
    } catch (err) {
      setError(describeError(err))
    }
  }

  return (
    <div class="account" ref={ref}>
      <button ref={button} type="button" class="btn btn-ghost account-button" aria-expanded={open} aria-controls="account-panel" onClick={() => setOpen(!open)}>
        <Icon name="user" size={18} />
        <span class="account-email">{user.email}</span>
        <span class="visually-hidden">Account</span>
        <Icon name="chevron-down" size={14} />
      </button>
      {open && (
        <div id="account-panel" class="account-panel">
          <p class="account-who">
            Signed in as <strong>{user.email}</strong>
            {current && (
              <>
                <br />
                {current.client_name ?? 'Your account'} · {current.role}
              </>
            )}
          </p>
          {others.length > 0 && (
            <div class="account-section">
              <p class="account-heading">Switch account</p>
              {others.map((m) => (
                <button key={m.client_id} type="button" class="account-item" onClick={() => switchTo(m.client_id)}>
                  {m.client_name ?? m.client_id} <span class="muted">({m.role})</span>
                </button>
              ))}
              {error && (
                <p class="error" role="alert">
                  {error}
                </p>
              )}
            </div>
          )}
          <fieldset class="account-section theme-switch">
            <legend class="account-heading">Theme</legend>
            <div class="segmented">
              {THEMES.map((t) => (
                <button key={t.value} type="button" aria-pressed={theme.value === t.value} onClick={() => setTheme(t.value)}>
                  <Icon name={t.icon} size={14} />
                  {t.label}
                </button>
              ))}
            </div>
          </fieldset>
          <div class="account-section">
            <Link href="/settings/account" class="account-item">
              <Icon name="key" size={14} /> Change password
            </Link>
            <button type="button" class="account-item" onClick={() => void signOut()}>
              <Icon name="log-out" size={14} /> Sign out
            </button>
          </div>
        </div>
      )}
    </div>
  )
}
