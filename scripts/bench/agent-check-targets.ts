/**
 * `bun scripts/bench/agent-check-targets.ts`: what the agent's checks call in the collector's
 * bench, in a process of its own so that their work is not counted as the collector's: an HTTP
 * server, an HTTPS one (a self-signed certificate made with openssl, for the HTTPS and TLS
 * checks), a TCP listener and the tests' tiny DNS server. Prints one JSON line with their ports
 * once they listen; runs until killed.
 */
import { dnsServer, selfSignedCert } from '../../test/helpers/check-servers'

/** the DNS checks' name and answer */
export const DNS_NAME = 'intranet.bench.test'
export const DNS_ANSWER = '10.0.0.7'

if (import.meta.main) {
  // a small page, as a health endpoint or an intranet home answers
  const page = `<!doctype html><title>intranet</title><p>status: ok</p>${'<p>lorem ipsum dolor sit amet</p>'.repeat(30)}`
  const handler = () => new Response(page, { headers: { 'content-type': 'text/html' } })
  const http = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: handler })
  const { cert, key } = selfSignedCert(90)
  const https = Bun.serve({ port: 0, hostname: '127.0.0.1', tls: { cert, key }, fetch: handler })
  const tcp = Bun.listen({
    hostname: '127.0.0.1',
    port: 0,
    socket: { data() {}, open() {} },
  })
  const dns = await dnsServer({ [DNS_NAME]: { A: [DNS_ANSWER] } })
  console.log(JSON.stringify({ http: http.port, https: https.port, tcp: tcp.port, dns: dns.port }))
}
