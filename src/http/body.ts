import { readCapped } from '../lib/capped-read'
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../lib/json-depth'
import { AppError } from './errors'

/** Malformed JSON is a validation failure (422), reported at loc ["body"]. */
export class BodyParseError extends Error {
  constructor(
    message: string,
    readonly type: string,
  ) {
    super(message)
  }
}

/**
 * Reads a body up to `max` bytes; a longer one is refused without buffering the rest. A declared
 * length was already held to `max` when the request was admitted (pipeline.ts), before the
 * credential and the rate limit let it this far; a chunked body is counted as it comes.
 */
export async function readBodyText(request: Request, max: number): Promise<string> {
  if (request.headers.has('content-length')) return request.text()
  return readCapped(request.body, max, () => tooLarge(max))
}

export const tooLarge = (max: number) => new AppError('payload_too_large', `The request body is larger than ${max} bytes`)

/**
 * A request body as the routes see it: JSON (any `application/json` or `+json` type, or none
 * given), read within `max` bytes. A bodyless request without a content type is `undefined`,
 * which a route's schema may accept; any other content type is a 422.
 */
export async function parseRequestBody(
  request: Request,
  contentType: string | null | undefined,
  max: number,
  keepRaw?: (text: string) => void,
): Promise<unknown> {
  const text = await readBodyText(request, max)
  keepRaw?.(text)
  if (!contentType || contentType.startsWith('application/json') || contentType.endsWith('+json')) {
    return text === '' && !contentType ? undefined : parseJson(text)
  }
  throw new BodyParseError(`Unsupported content type "${contentType}"; send application/json`, 'content_type')
}

export function parseJson(text: string): unknown {
  // before the parse: it and everything after it (validation, storage) recurse per level
  if (exceedsJsonDepth(text)) throw new BodyParseError(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`, 'json_too_deep')
  try {
    return JSON.parse(text)
  } catch (err) {
    // A blank body never parses, so it is told apart only here, off the hot path (no trim copy per request).
    if (text.trim() === '') throw new BodyParseError('Request body is empty; expected a JSON document', 'json_invalid')
    throw new BodyParseError(`Invalid JSON: ${(err as Error).message}`, 'json_invalid')
  }
}
