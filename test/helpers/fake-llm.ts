/**
 * A local language-model server speaking one provider's wire format, on 127.0.0.1 with a
 * random port. `mode` picks the behaviour of the next answers; `requests` records what arrived.
 */
export type FakeMode = 'ok' | 'error' | 'hang' | 'malformed' | 'oversized' | 'redirect' | 'garbage'
export type Wire = 'openai' | 'ollama' | 'anthropic'

export interface Recorded {
  path: string
  headers: Record<string, string>
  body: any
}

const PATHS: Record<Wire, string> = { openai: '/v1/chat/completions', ollama: '/api/chat', anthropic: '/v1/messages' }

function success(wire: Wire, content: string, model: string) {
  if (wire === 'openai')
    return {
      id: 'cmpl-1',
      model,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 321, completion_tokens: 45 },
    }
  if (wire === 'ollama') return { model, message: { role: 'assistant', content }, done: true, prompt_eval_count: 321, eval_count: 45 }
  return { id: 'msg_1', type: 'message', model, content: [{ type: 'text', text: content }], usage: { input_tokens: 321, output_tokens: 45 } }
}

function failure(wire: Wire, message: string) {
  if (wire === 'openai') return { status: 401, body: { error: { message, type: 'invalid_request_error' } } }
  if (wire === 'ollama') return { status: 404, body: { error: message } }
  return { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message } } }
}

export const GOOD_ANSWER = JSON.stringify({
  recommendations: [
    { recommendation: 'Rotate and compress /var/log: it grows 2 GB a day.', category: 'disk', severity: 'warning' },
    { recommendation: 'Schedule the nightly backup outside business hours.', category: 'general', severity: 'info' },
  ],
})

export function fakeLlm(wire: Wire) {
  const requests: Recorded[] = []
  const state = { mode: 'ok' as FakeMode, content: GOOD_ANSWER, errorMessage: 'Incorrect API key provided' }
  const hanging: (() => void)[] = []
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const url = new URL(req.url)
      const body = (await req.json().catch(() => null)) as any
      requests.push({ path: url.pathname, headers: Object.fromEntries(req.headers), body })
      if (url.pathname !== PATHS[wire]) return Response.json({ error: 'not found' }, { status: 404 })
      switch (state.mode) {
        case 'ok':
          return Response.json(success(wire, state.content, body?.model ?? 'unknown'))
        case 'error': {
          const f = failure(wire, state.errorMessage)
          return Response.json(f.body, { status: f.status })
        }
        case 'hang':
          return new Promise<Response>((resolve) => hanging.push(() => resolve(new Response('late'))))
        case 'malformed':
          return Response.json({ unexpected: true })
        case 'garbage':
          return new Response('<html>oops</html>', { headers: { 'content-type': 'text/html' } })
        case 'oversized': {
          // streamed without a content-length, so only the reader's cap can stop it
          const chunk = new TextEncoder().encode('x'.repeat(64 * 1024))
          let sent = 0
          return new Response(
            new ReadableStream({
              pull(c) {
                if (sent++ >= 20) return c.close()
                c.enqueue(chunk)
              },
            }),
          )
        }
        case 'redirect':
          return new Response(null, { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } })
      }
    },
  })
  const root = `http://127.0.0.1:${server.port}`
  return {
    /** the base_url to configure for this wire format */
    baseUrl: wire === 'openai' ? `${root}/v1` : root,
    requests,
    state,
    stop() {
      for (const h of hanging) h()
      server.stop(true)
    },
  }
}
