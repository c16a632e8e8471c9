/**
 * A child process's output as it comes, so a test can wait for what it prints without a timer:
 * `until(find)` resolves with the first thing `find` sees in the text so far, and fails once the
 * stream has ended without it (the process exited).
 */
export function follow(stream: ReadableStream<Uint8Array>) {
  let text = ''
  let ended = false
  let wake = () => {}
  void (async () => {
    const decoder = new TextDecoder()
    for await (const chunk of stream) {
      text += decoder.decode(chunk, { stream: true })
      wake()
    }
    ended = true
    wake()
  })()
  return {
    text: () => text,
    async until<T>(find: (text: string) => T | undefined, what: string): Promise<T> {
      for (;;) {
        const found = find(text)
        if (found !== undefined) return found
        if (ended) throw new Error(`the process ended before ${what}: ${text}`)
        await new Promise<void>((resolve) => (wake = resolve))
      }
    },
  }
}

/** The whole JSON lines of a text (a hub logging as JSON), the other lines and the unfinished last one left out. */
export const jsonLines = (text: string): Record<string, unknown>[] =>
  text
    .split('\n')
    .slice(0, -1)
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
