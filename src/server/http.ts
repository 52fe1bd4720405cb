/**
 * Small web-standard HTTP helpers shared by the relay and the sandbox: JSON
 * answers, the service's error shape, and body reading with a byte limit that
 * is counted while the body streams in, whatever the Content-Length claims.
 */
import { type ErrorBody, SERVICE_ERRORS, type ServiceErrorKind } from '../shared/service-contract.js';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

/**
 * On a Request made by the Node adapter: a function that hands over the body
 * the adapter already buffered (once), so {@link readJsonBody} skips the web
 * stream. Web runtimes never set it.
 */
export const TAKE_BUFFERED_BODY: unique symbol = Symbol.for('pay-checkout.http.takeBufferedBody');

/**
 * `true` on a Request made by the Node adapter: its answer goes back to the
 * adapter, so {@link jsonResponse} may give a lightweight Response.
 */
export const NODE_ADAPTER_REQUEST: unique symbol = Symbol.for('pay-checkout.http.nodeAdapterRequest');

/**
 * On a Request made by the Node adapter: a function answering one header as
 * `request.headers.get(name)` would, read from the Node request without
 * building a Headers. See {@link headerOf}.
 */
export const READ_HEADER: unique symbol = Symbol.for('pay-checkout.http.readHeader');

/** On a {@link jsonResponse} whose body is untouched: the body text, for the Node adapter to write. */
export const RESPONSE_TEXT: unique symbol = Symbol.for('pay-checkout.http.responseText');

/**
 * On a lightweight {@link jsonResponse} whose `headers` nobody has read: the
 * headers as a plain record, for the Node adapter to write without a Headers object.
 */
export const RESPONSE_HEADER_RECORD: unique symbol = Symbol.for('pay-checkout.http.responseHeaderRecord');

/** A request that may come from the Node adapter. */
export type NodeAdapterAwareRequest = Request & {
  [TAKE_BUFFERED_BODY]?: () => Uint8Array | undefined;
  [NODE_ADAPTER_REQUEST]?: boolean;
  [READ_HEADER]?: (name: string) => string | null;
};

/** A response that may carry its body text and header record. */
export type TextCarryingResponse = Response & {
  [RESPONSE_TEXT]?: string;
  [RESPONSE_HEADER_RECORD]?: Readonly<Record<string, string>>;
};

/**
 * A JSON answer with `no-store`, since every answer here is about money.
 * Given the `request` it answers, and when that request came through the Node
 * adapter, the Response is lightweight: see {@link lightResponse}.
 */
export function jsonResponse(
  body: unknown,
  status = 200,
  headers?: HeadersInit,
  request?: Request,
): Response {
  const text = JSON.stringify(body);
  let merged: Headers | undefined;
  if (headers) {
    merged = new Headers(JSON_HEADERS);
    new Headers(headers).forEach((value, name) => {
      merged?.set(name, value);
    });
  }
  if (request && (request as NodeAdapterAwareRequest)[NODE_ADAPTER_REQUEST] === true) {
    return lightResponse(text, status, merged);
  }
  const response: TextCarryingResponse = new Response(text, { status, headers: merged ?? JSON_HEADERS });
  response[RESPONSE_TEXT] = text;
  return response;
}

interface LightResponseState {
  text: string;
  status: number;
  headers: Headers | undefined;
  real: Response | undefined;
}

const LIGHT_RESPONSE_STATE = Symbol('lightResponseState');
type LightResponseTarget = Response & { [LIGHT_RESPONSE_STATE]: LightResponseState };

function realResponseOf(state: LightResponseState): Response {
  state.real ??= new Response(state.text, { status: state.status, headers: state.headers ?? JSON_HEADERS });
  return state.real;
}

// One handler for every lightweight Response: no closures per answer.
const lightResponseHandler: ProxyHandler<LightResponseTarget> = {
  get(target, key) {
    const state = target[LIGHT_RESPONSE_STATE];
    // `await response` asks for `then`; a Response has none.
    if (key === 'then') return undefined;
    if (state.real === undefined) {
      switch (key) {
        case 'status':
          return state.status;
        case 'headers':
          state.headers ??= new Headers(JSON_HEADERS);
          return state.headers;
        case 'bodyUsed':
          return false;
        case RESPONSE_TEXT:
          return state.text;
        case RESPONSE_HEADER_RECORD:
          return state.headers === undefined ? JSON_HEADERS : undefined;
      }
    } else if (key === RESPONSE_TEXT || key === RESPONSE_HEADER_RECORD) {
      return undefined;
    }
    const real = realResponseOf(state);
    const value: unknown = Reflect.get(real, key, real);
    return typeof value === 'function' && key !== 'constructor' ? value.bind(real) : value;
  },
  has(target, key) {
    return Reflect.has(target[LIGHT_RESPONSE_STATE].real ?? Response.prototype, key);
  },
  set(target, key, value) {
    const real = realResponseOf(target[LIGHT_RESPONSE_STATE]);
    return Reflect.set(real, key, value, real);
  },
};

/**
 * A Response for the Node adapter only. On Node 20, undici's `new Response`
 * builds a web stream for the body: more work than a small handler's own
 * (bench/results/sandbox.json). This Proxy answers `status`, `headers`,
 * `bodyUsed` and the body text itself, and builds the real Response the first
 * time anything else is touched (undici's internal fields too, so `clone()`,
 * `text()` and `new Response(r.body, r)` work). It is `instanceof Response`.
 * Once the real one exists, everything, `headers` included, is the real one's.
 */
function lightResponse(text: string, status: number, headers: Headers | undefined): Response {
  const target = Object.create(Response.prototype) as LightResponseTarget;
  target[LIGHT_RESPONSE_STATE] = { text, status, headers, real: undefined };
  return new Proxy(target, lightResponseHandler);
}

/** An answer in the service's error shape (spec §7). */
export function errorResponse(
  kind: ServiceErrorKind,
  message: string,
  options: { param?: string; headers?: HeadersInit; request?: Request } = {},
): Response {
  const { status, code, type } = SERVICE_ERRORS[kind];
  const error: ErrorBody['error'] = { code, message, type };
  if (options.param !== undefined) error.param = options.param;
  return jsonResponse({ error } satisfies ErrorBody, status, options.headers, options.request);
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

  /** The error answer; pass the request to let the Node adapter answer it cheaply. */
  toResponse(request?: Request): Response {
    return errorResponse(this.kind, this.message, { request });
  }
}

/**
 * `request.headers.get(name)`. On a Request from the Node adapter it reads the
 * Node request's own headers: building a web Headers costs more than the
 * rest of a small handler's reading.
 */
export function headerOf(request: Request, name: string): string | null {
  const readHeader = (request as NodeAdapterAwareRequest)[READ_HEADER];
  return readHeader ? readHeader.call(request, name) : request.headers.get(name);
}

/**
 * The path of an absolute URL such as `Request.url`, as `new URL(url).pathname`
 * gives it, without parsing the URL again: a Request's URL is already parsed
 * and serialised.
 */
export function pathnameOf(url: string): string {
  const pathStart = url.indexOf('/', url.indexOf('://') + 3);
  if (pathStart === -1) return '/';
  let end = url.length;
  const query = url.indexOf('?', pathStart);
  if (query !== -1) end = query;
  const fragment = url.indexOf('#', pathStart);
  if (fragment !== -1 && fragment < end) end = fragment;
  return url.slice(pathStart, end);
}

/** True when the request says its body is JSON. */
export function isJsonContentType(request: Request): boolean {
  const type = headerOf(request, 'content-type') ?? '';
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
  const declared = Number(headerOf(request, 'content-length'));
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

const UTF8_DECODER = new TextDecoder('utf-8', { fatal: true });

async function readTextWithLimit(request: Request, maxBytes: number): Promise<string> {
  const buffered = (request as NodeAdapterAwareRequest)[TAKE_BUFFERED_BODY]?.();
  if (buffered !== undefined) {
    if (buffered.byteLength > maxBytes) {
      throw new RequestBodyError('payloadTooLarge', `The body is over ${maxBytes} bytes.`);
    }
    try {
      return UTF8_DECODER.decode(buffered);
    } catch {
      throw new RequestBodyError('invalidRequest', 'The body is not valid UTF-8.');
    }
  }
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
