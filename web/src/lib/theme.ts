import { signal } from '@preact/signals'

/** 'system' follows prefers-color-scheme; the choice is kept in localStorage (nothing secret). */
export type ThemeChoice = 'system' | 'light' | 'dark'

const KEY = 'vigil-theme'

function stored(): ThemeChoice {
  try {
    const v = localStorage.getItem(KEY)
    return v === 'light' || v === 'dark' ? v : 'system'
  } catch {
    return 'system'
  }
}

export const theme = signal<ThemeChoice>(stored())

/** Sets data-theme on <html> (the stylesheet's tokens follow it); 'system' removes it. */
export function applyTheme(choice: ThemeChoice = theme.value): void {
  const root = document.documentElement
  if (choice === 'system') root.removeAttribute('data-theme')
  else root.setAttribute('data-theme', choice)
}

export function setTheme(choice: ThemeChoice): void {
  theme.value = choice
  try {
    if (choice === 'system') localStorage.removeItem(KEY)
    else localStorage.setItem(KEY, choice)
  } catch {
    // private mode: the choice lasts for this page
  }
  applyTheme(choice)
}
