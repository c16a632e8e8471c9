/**
 * The floor of the idle-memory figures: an empty Bun.serve, compiled as dist/vigil is
 * (scripts/bench/run-rss.ts builds it), which answers every request with "ok".
 * Usage: floor <port>
 */
const server = Bun.serve({ port: Number(process.argv[2]), hostname: '127.0.0.1', fetch: () => new Response('ok') })
process.on('SIGTERM', () => {
  server.stop(true)
  process.exit(0)
})
