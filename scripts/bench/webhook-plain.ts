/**
 * `bun scripts/bench/webhook-plain.ts '{"url","body","n","concurrency"}'`: the baseline for
 * webhook delivery: the same receiver driven by plain unsigned POSTs of the same body from one
 * process, `concurrency` at a time, with nothing stored. Prints {ok, failed}.
 */
export {}

const { url, body, n, concurrency } = JSON.parse(process.argv[2]!) as { url: string; body: string; n: number; concurrency: number }
let next = 0
let ok = 0
let failed = 0
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < n) {
      const i = next++
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'webhook-id': `plain_${i}` }, body })
      await res.arrayBuffer()
      if (res.ok) ok++
      else failed++
    }
  }),
)
console.log(JSON.stringify({ ok, failed }))
