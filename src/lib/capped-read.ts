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

/**
 * The first `max` bytes of a body as UTF-8 text (null when it is empty); the rest is cancelled,
 * never downloaded. For the excerpt of a third party's answer kept in a delivery log.
 */
export async function readHead(stream: ReadableStream<Uint8Array> | null, max: number): Promise<string | null> {
  if (!stream) return null
  const reader = stream.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  while (size < max) {
    const { done, value } = await reader.read()
    if (done) break
    chunks.push(value)
    size += value.byteLength
  }
  if (size >= max) await reader.cancel().catch(() => {})
  if (!size) return null
  // cut on a character boundary: a multi-byte character split at `max` is dropped, not mangled
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, max), { stream: true })
}
