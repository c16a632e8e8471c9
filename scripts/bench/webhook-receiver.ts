/**
 * `bun scripts/bench/webhook-receiver.ts <port>`: the bench's webhook receiver, in its own
 * process. POST anything: counted (and each webhook-id's first arrival time kept), answered
 * 204. GET /stats: {count, unique, first, last} (?arrivals: with each id's arrival time); POST /reset starts over.
 * Times are wall-clock ms with sub-ms precision, comparable across processes on this machine.
 */
const port = Number(process.argv[2])
const wall = () => performance.timeOrigin + performance.now()
let count = 0
let first = 0
let last = 0
let arrivals = new Map<string, number>()

Bun.serve({
  hostname: '127.0.0.1',
  port,
  async fetch(req) {
    const path = new URL(req.url).pathname
    if (req.method === 'GET' && path === '/stats') {
      // the arrival times only when asked: serialising thousands of them on every poll would slow the receiver
      const withArrivals = new URL(req.url).searchParams.has('arrivals')
      return Response.json({ count, unique: arrivals.size, first, last, arrivals: withArrivals ? Object.fromEntries(arrivals) : {} })
    }
    if (path === '/reset') {
      count = first = last = 0
      arrivals = new Map()
      return new Response(null, { status: 204 })
    }
    await req.arrayBuffer()
    const now = wall()
    if (!count) first = now
    last = now
    count++
    const id = req.headers.get('webhook-id')
    if (id && !arrivals.has(id)) arrivals.set(id, now)
    return new Response(null, { status: 204 })
  },
})
console.log('ready')
