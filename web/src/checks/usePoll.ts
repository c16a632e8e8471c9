import { useEffect } from 'preact/hooks'

/** Checks have no live events: a page that shows their state reads again this often while the tab is visible. */
export const POLL_MS = 10_000

/** Calls `reload` every POLL_MS while the document is visible, and at once when it becomes visible again. */
export function usePoll(reload: () => unknown, key: unknown[] = []): void {
  useEffect(() => {
    const tick = () => {
      if (document.visibilityState === 'visible') void reload()
    }
    const timer = setInterval(tick, POLL_MS)
    document.addEventListener('visibilitychange', tick)
    return () => {
      clearInterval(timer)
      document.removeEventListener('visibilitychange', tick)
    }
  }, key)
}
