/**
 * Reads a body stream as UTF-8 text, but never more than `max` bytes: past that the stream is
 * cancelled (the rest is never buffered) and `tooLarge()` is thrown. For request bodies and for
 * answers from third-party servers alike.
 */
export async function readCapped(stream: ReadableStream<Uint8Array> | null, max: number, tooLarge: () => Error): Promise<string> {
  if (!stream) return ''
  const reader = stream.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > max) {
      await reader.cancel().catch(() => {})
      throw tooLarge()
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString('utf8')
}
