// The part of autocannon's API the bench uses (it ships no types).
declare module 'autocannon' {
  interface Histogram {
    average: number
    p50: number
    p99: number
    p99_9: number
    max: number
  }
  interface Result {
    requests: Histogram
    latency: Histogram
    '2xx': number
    non2xx: number
    errors: number
    timeouts: number
  }
  function autocannon(opts: Record<string, unknown>): Promise<Result>
  export default autocannon
}
