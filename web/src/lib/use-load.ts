import { useEffect, useRef, useState } from 'preact/hooks'

export interface Loaded<T> {
  data: T | null
  error: unknown
  loading: boolean
  /** reads again, keeping what is shown meanwhile (nothing jumps) */
  reload: () => Promise<void>
  /** replaces the data in place (an answer or a live event that already holds the new state) */
  set: (update: T | ((old: T | null) => T)) => void
}

/**
 * One API read for a page: on mount and whenever `key` changes (a filter in the URL). Only the
 * latest read may write, so changing filters quickly never shows an older answer.
 */
export function useLoad<T>(load: () => Promise<T>, key: unknown[] = []): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: unknown; loading: boolean }>({ data: null, error: null, loading: true })
  const latest = useRef(0)
  const run = async () => {
    const mine = ++latest.current
    setState((s) => ({ ...s, loading: true }))
    try {
      const data = await load()
      if (mine === latest.current) setState({ data, error: null, loading: false })
    } catch (error) {
      if (mine === latest.current) setState((s) => ({ data: s.data, error, loading: false }))
    }
  }
  useEffect(() => {
    void run()
  }, key)
  return {
    ...state,
    reload: run,
    set: (update) => setState((s) => ({ data: typeof update === 'function' ? (update as (old: T | null) => T)(s.data) : update, error: null, loading: false })),
  }
}
