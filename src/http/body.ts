import { AppError } from './errors'

/** Malformed JSON is a validation failure (422), reported at loc ["body"]. */
export class BodyParseError extends Error {
  constructor(message: string, readonly type: string) {
    super(message)
  }
}

/** Reads a body up to `max` bytes; a longer one is refused without buffering the rest. */
export async function readBodyText(request: Request, max: number): Promise<string> {
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > max) throw tooLarge(max)
  if (declared !== null) return request.text()
  // Chunked: count as we go.
  if (!request.body) return ''
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > max) {
      await reader.cancel()
      throw tooLarge(max)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString('utf8')
}

const tooLarge = (max: number) =>
  new AppError('payload_too_large', `The request body is larger than ${max} bytes`)

export function parseJson(text: string): unknown {
  if (text.trim() === '') throw new BodyParseError('Request body is empty; expected a JSON document', 'json_invalid')
  try {
    return JSON.parse(text)
  } catch (err) {
    throw new BodyParseError(`Invalid JSON: ${(err as Error).message}`, 'json_invalid')
  }
}
