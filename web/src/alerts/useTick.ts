import { useEffect, useState } from 'preact/hooks'

/** Re-renders every `ms` so "12 s ago" stays true on a page left open. */
export function useTick(ms = 15_000): number {
  const [now, setNow] = useState(Date.now())
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms)
    return () => clearInterval(t)
  }, [ms])
  return now
}
