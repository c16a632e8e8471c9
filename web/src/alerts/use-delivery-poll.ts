import { useEffect } from 'preact/hooks'

/**
 * A delivery log looks again every few seconds while something on it is on its way, so a
 * retry's outcome shows by itself; `data` is the loaded page, so each answer schedules the next look.
 */
export function useDeliveryPoll(items: { status: string }[], reload: () => unknown, data: unknown): void {
  const inFlight = items.some((d) => d.status === 'pending' || d.status === 'sending')
  useEffect(() => {
    if (!inFlight) return
    const t = setTimeout(() => void reload(), 2000)
    return () => clearTimeout(t)
  }, [inFlight, data])
}
