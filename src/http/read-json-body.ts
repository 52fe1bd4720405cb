/**
 * Reading a JSON body within a byte limit. Over the wire a `Content-Length`
 * frames the body, so a declared length is checked before anything is read
 * and the body is then read whole; a body without one (chunked, or a stream
 * made in code) is counted as its bytes arrive, so it cannot slip past the
 * limit either. Throws {@link HttpError}: `415` not JSON, `413` too large,
 * `400` empty, malformed or not UTF-8.
 */
import { HttpError } from './http-error.js';
import { takeBufferedBody } from './node/node-request.js';

const JSON_CONTENT_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const UTF8_DECODER = new TextDecoder('utf-8', { fatal: true });

/** True when the request says its body is JSON. */
export function isJsonContentType(request: Request): boolean {
  return JSON_CONTENT_TYPE.test(request.headers.get('content-type') ?? '');
}

/** True for a plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The parsed JSON body of at most `maxBytes`; throws {@link HttpError}. */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  if (!isJsonContentType(request)) {
    throw new HttpError('unsupportedMediaType', 'Send the body as application/json.');
  }
  const read = readTextWithin(request, maxBytes);
  // A body the Node listener buffered is read at once, without a turn of the event loop.
  const text = typeof read === 'string' ? read : await read;
  if (text.trim() === '') throw new HttpError('invalidRequest', 'The body is empty; send a JSON object.');
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError('invalidRequest', 'The body is not valid JSON.');
  }
}

/** The parsed body when it is a JSON object; throws {@link HttpError} `400` for any other JSON. */
export async function readJsonObject(
  request: Request,
  maxBytes: number,
  notAnObjectMessage = 'Send a JSON object.',
): Promise<Record<string, unknown>> {
  const body = await readJsonBody(request, maxBytes);
  if (!isJsonObject(body)) throw new HttpError('invalidRequest', notAnObjectMessage);
  return body;
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError('payloadTooLarge', `The body is over ${maxBytes} bytes.`);
}

function notUtf8(): HttpError {
  return new HttpError('invalidRequest', 'The body is not valid UTF-8.');
}

function readTextWithin(request: Request, maxBytes: number): string | Promise<string> {
  const declared = request.headers.get('content-length');
  if (declared !== null) {
    if (Number(declared) > maxBytes) throw tooLarge(maxBytes);
    // Framed by its Content-Length: reading it whole reads no more than was declared.
    const buffered = takeBufferedBody(request);
    if (buffered) return decodeWithin(buffered, maxBytes);
    return request.arrayBuffer().then((bytes) => decodeWithin(bytes, maxBytes));
  }
  return request.body ? readStreamWithin(request.body, maxBytes) : '';
}

/** The UTF-8 text of a whole body, checked against the limit once more. */
function decodeWithin(bytes: ArrayBuffer | Uint8Array, maxBytes: number): string {
  if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes);
  try {
    return UTF8_DECODER.decode(bytes);
  } catch {
    throw notUtf8();
  }
}

async function readStreamWithin(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<string> {
  const reader = body.getReader();
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
        throw tooLarge(maxBytes);
      }
      text += decoder.decode(value, { stream: true });
    }
    return text + decoder.decode();
  } catch (error) {
    if (error instanceof HttpError) throw error;
    if (error instanceof TypeError) throw notUtf8();
    throw error;
  } finally {
    reader.releaseLock();
  }
}
