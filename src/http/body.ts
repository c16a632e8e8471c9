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

/** `application/json`, with parameters (`; charset=utf-8`) or none, in any case. */
export const isJsonType = (contentType: string) => contentType === 'application/json' || /^application\/json\s*(;|$)/i.test(contentType.trim())

const unsupported = (contentType: string | null) =>
  new AppError(
    'unsupported_media_type',
    contentType
      ? `Unsupported content type "${contentType.slice(0, 100)}"; send the body as JSON with Content-Type: application/json`
      : 'The request has a body but no Content-Type; send it as JSON with Content-Type: application/json',
    'content-type',
  )

/**
 * A request body as the routes see it: JSON, read within `max` bytes. A request without a body
 * and without a content type is `undefined`, which a route's schema may accept. Every other body
 * must say `Content-Type: application/json`, or it is a 415 before it is read: a browser lets any
 * page send a cross-site form or text/plain POST without asking first (a "simple" request), and
 * reading those as JSON let other sites register accounts, sign people in and redeem enrolment
 * tokens on their visitors' behalf. application/json needs the CORS preflight this service refuses.
 */
export async function parseRequestBody(
  request: Request,
  contentType: string | null | undefined,
  max: number,
  keepRaw?: (text: string) => void,
): Promise<unknown> {
  if (contentType && !isJsonType(contentType)) throw unsupported(contentType)
  const text = await readBodyText(request, max)
  keepRaw?.(text)
  if (!contentType) {
    if (text === '') return undefined
    throw unsupported(null)
  }
  return parseJson(text)
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
