/** One text/event-stream frame as a reader sees it. */
export interface SseFrame {
  id?: string
  event?: string
  /** the data line parsed as JSON */
  data?: any
  comment?: string
  retry?: number
}

/**
 * Reads a text/event-stream body frame by frame, as it arrives (never the whole body: it does
 * not end). `next()` resolves with null once the stream has ended.
 */
export function sseReader(res: Response) {
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  let ended = false

  async function next(): Promise<SseFrame | null> {
    for (;;) {
      const end = buffer.indexOf('\n\n')
      if (end !== -1) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        return parse(block)
      }
      if (ended) return null
      const { done, value } = await reader.read()
      if (done) ended = true
      else buffer += decoder.decode(value, { stream: true })
    }
  }

  return {
    next,
    /** the next frame that is an event (comments and retry lines skipped) */
    async event(): Promise<SseFrame | null> {
      for (;;) {
        const f = await next()
        if (f === null || f.event !== undefined) return f
      }
    },
    /** true once the server has closed the stream (after any frames still queued) */
    async ended(): Promise<boolean> {
      while ((await next()) !== null) {}
      return true
    },
    cancel: () => reader.cancel(),
  }
}

function parse(block: string): SseFrame {
  const frame: SseFrame = {}
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) frame.comment = line.slice(1).trim()
    else if (line.startsWith('id: ')) frame.id = line.slice(4)
    else if (line.startsWith('event: ')) frame.event = line.slice(7)
    else if (line.startsWith('data: ')) frame.data = JSON.parse(line.slice(6))
    else if (line.startsWith('retry: ')) frame.retry = Number(line.slice(7))
  }
  return frame
}
