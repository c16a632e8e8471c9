/**
 * When a group commit goes (metrics.group-commit.ts): its thresholds, and the devices that had a sample
 * committed lately (a client posting again as soon as it is answered).
 */

/**
 * How long the first pending request waits for others to share its commit. Collectors post
 * every 10 s each at their own moment: 100 devices posting once a second each, spread over the
 * second, wrote 6.4 KB per sample committing each request alone, 3.9 KB gathering for 25 ms and
 * 3.0 KB for 50 ms (docs/storage.md); 100 ms gave 2.6 KB. No collector waits on its answer (it
 * posts in the background), so the wait costs nothing but those ms; 50 ms keeps a script's or a
 * test's lone post quick while taking most of the gain.
 */
export const GATHER_MS = 50
/**
 * A device whose previous sample was committed this recently (up to twice as long) is a client
 * posting in turn as fast as it is answered; collectors post every few seconds at most.
 */
export const RETURN_MS = 250
/** Pending requests that go at once: past this a group costs more in waiting than it saves in pages. */
export const GATHER_REQUESTS = 64
/** Pending rest text that goes at once (a large bulk replay fills pages by itself). */
export const GATHER_BYTES = 512 * 1024

/** The devices with a sample committed within RETURN_MS (up to twice as long): they age a span at a time. */
export function recentDevices(elapsed: () => number) {
  let recent = new Set<number>()
  let older = new Set<number>()
  let since = elapsed()
  const age = () => {
    const t = elapsed()
    if (t - since < RETURN_MS) return
    older = t - since < 2 * RETURN_MS ? recent : new Set()
    recent = new Set()
    since = t
  }
  return {
    committed(deviceSeq: number): void {
      age()
      recent.add(deviceSeq)
    },
    has(deviceSeq: number): boolean {
      age()
      return recent.has(deviceSeq) || older.has(deviceSeq)
    },
  }
}
