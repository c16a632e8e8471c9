import { useEffect, useState } from 'preact/hooks'

/** The time now, refreshed every `everyMs` (for "12 s ago" that keeps counting). */
export function useNow(everyMs: number): number {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs)
    return () => clearInterval(timer)
  }, [everyMs])
  return now
}
