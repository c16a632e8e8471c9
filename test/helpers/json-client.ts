/** A JSON caller of a running hub: the status, the text and the parsed body of each answer. */
export function jsonClient(base: string) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(base + path, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.text()
    return { status: res.status, text, body: (text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : null) as any }
  }
}

export type JsonCall = ReturnType<typeof jsonClient>
