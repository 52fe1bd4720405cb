/**
 * Small web-standard HTTP helpers shared by the relay and the sandbox: JSON
 * answers, the service's error shape, and body reading with a byte limit that
 * is counted while the body streams in, whatever the Content-Length claims.
 */
import { type ErrorBody, SERVICE_ERRORS, type ServiceErrorKind } from '../shared/service-contract.js';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

/** A JSON answer with `no-store`, since every answer here is about money. */
export function jsonResponse(body: unknown, status = 200, headers?: HeadersInit): Response {
  const merged = new Headers(JSON_HEADERS);
  if (headers) {
    new Headers(headers).forEach((value, name) => {
      merged.set(name, value);
    });
  }
  return new Response(JSON.stringify(body), { status, headers: merged });
}

/** An answer in the service's error shape (spec §7). */
export function errorResponse(
  kind: ServiceErrorKind,
  message: string,
  options: { param?: string; headers?: HeadersInit } = {},
): Response {
  const { status, code, type } = SERVICE_ERRORS[kind];
  const error: ErrorBody['error'] = { code, message, type };
  if (options.param !== undefined) error.param = options.param;
  return jsonResponse({ error } satisfies ErrorBody, status, options.headers);
}

/** Thrown by {@link readJsonBody}; `toResponse()` gives the answer to send. */
export class RequestBodyError extends Error {
  constructor(
    readonly kind: 'payloadTooLarge' | 'unsupportedMediaType' | 'invalidRequest',
    message: string,
  ) {
    super(message);
    this.name = 'RequestBodyError';
  }

  toResponse(): Response {
    return errorResponse(this.kind, this.message);
  }
}

/** True when the request says its body is JSON. */
export function isJsonContentType(request: Request): boolean {
  const type = request.headers.get('content-type') ?? '';
  return /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type);
}

/**
 * Reads a JSON body of at most `maxBytes`. Counts bytes as they arrive, so a
 * chunked body or a false Content-Length cannot slip past the limit.
 * Throws {@link RequestBodyError} for a body that is too large, not JSON, or malformed.
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  if (!isJsonContentType(request)) {
    throw new RequestBodyError('unsupportedMediaType', 'Send the body as application/json.');
  }
  const declared = Number(request.headers.get('content-length'));
  if (declared > maxBytes) {
    throw new RequestBodyError('payloadTooLarge', `The body is over ${maxBytes} bytes.`);
  }
  const text = await readTextWithLimit(request, maxBytes);
  if (text.trim() === '')
    throw new RequestBodyError('invalidRequest', 'The body is empty; send a JSON object.');
  try {
    return JSON.parse(text);
  } catch {
    throw new RequestBodyError('invalidRequest', 'The body is not valid JSON.');
  }
}

async function readTextWithLimit(request: Request, maxBytes: number): Promise<string> {
  if (!request.body) return '';
  const reader = request.body.getReader();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let received = 0;
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.byteLength;
      if (received > maxBytes) {
        await reader.cancel();
        throw new RequestBodyError('payloadTooLarge', `The body is over ${maxBytes} bytes.`);
      }
      text += decoder.decode(value, { stream: true });
    }
    return text + decoder.decode();
  } catch (error) {
    if (error instanceof RequestBodyError) throw error;
    if (error instanceof TypeError)
      throw new RequestBodyError('invalidRequest', 'The body is not valid UTF-8.');
    throw error;
  } finally {
    reader.releaseLock();
  }
}

/** True for a plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
