import { useEffect, useRef, useState } from 'preact/hooks'

export interface Resource<T> {
  data: T | null
  error: unknown
  loading: boolean
  /** loads again (after a change), keeping the data shown meanwhile so nothing jumps */
  reload: () => Promise<void>
  /** replaces the data in place (an answer that already holds the new state) */
  set: (data: T) => void
}

/**
 * One API read for a page: loads on mount and whenever `key` changes (a page number, a filter).
 * Only the latest load may write, so paging quickly never shows an older page's late answer.
 */
export function useResource<T>(load: () => Promise<T>, key: unknown[] = []): Resource<T> {
  const [state, setState] = useState<{ data: T | null; error: unknown; loading: boolean }>({ data: null, error: null, loading: true })
  const latest = useRef(0)
  const fetchNow = async () => {
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
    void fetchNow()
  }, key)
  return { ...state, reload: fetchNow, set: (data: T) => setState({ data, error: null, loading: false }) }
}
