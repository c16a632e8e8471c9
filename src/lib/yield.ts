/**
 * A turn of the event loop: the requests and I/O waiting on it go first. Long runs of work (bulk
 * jobs, the integrity check, handing pages back) take one between their bounded steps.
 */
export const yieldToRequests = (): Promise<void> => new Promise<void>((r) => setImmediate(r))
