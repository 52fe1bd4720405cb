/**
 * The handler's `Request` on Node, built lazily (the idea is
 * `@hono/node-server`'s). On Node 20, undici's `new Request` with a body and a
 * signal costs tens of microseconds: a web stream, a signal follower, a
 * `Headers` (bench/results/sandbox.json). This one answers `method`, `url`,
 * `headers` (see lazy-headers.ts) and `signal` from the Node request, reads
 * `arrayBuffer()`, `text()` and `json()` from the body the listener already
 * buffered, and builds the real `Request` the first time anything else is
 * touched (`body`, `clone()`, `formData()`…), so every standard use works.
 * It is `instanceof Request`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from '../http-error.js';
import { FAST_JSON_ANSWER } from '../json-response.js';
import { lazyHeaders, realHeaders } from './lazy-headers.js';
import { lightJsonResponse } from './light-response.js';

const STATE = Symbol('nodeRequestState');

interface NodeRequestState {
  incoming: IncomingMessage;
  /** The URL, or the `400` a handler gets when it reads it (a Host that is not a plain host name). */
  url: string | HttpError;
  method: string;
  body: Buffer | undefined;
  headers: Headers | undefined;
  real: Request | undefined;
  bodyTaken: boolean;
  abort: AbortController | undefined;
  clientGone: boolean;
}

type StateHolder = { [STATE]: NodeRequestState };

/** The handler's lazy `Request` for a Node request whose body (if any) is already read. */
export function nodeRequest(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  body: Buffer | undefined,
): Request {
  const state: NodeRequestState = {
    incoming,
    url: requestUrl(incoming),
    method: incoming.method ?? 'GET',
    body,
    headers: undefined,
    real: undefined,
    bodyTaken: false,
    abort: undefined,
    clientGone: false,
  };
  // The shopper's browser may go away mid-request; the handler may stop its upstream call.
  (outgoing as ServerResponse & Partial<StateHolder>)[STATE] = state;
  outgoing.on('close', onResponseClose);
  const request = Object.create(NodeRequest.prototype) as StateHolder;
  request[STATE] = state;
  return request as unknown as Request;
}

/**
 * The body the Node listener buffered for `request`, taken as `arrayBuffer()`
 * would take it (a second read throws the same TypeError), but without the
 * copy; `undefined` for any other request, or once the real one was built.
 */
export function takeBufferedBody(request: Request): Uint8Array | undefined {
  const state = (request as unknown as Partial<StateHolder>)[STATE];
  if (state === undefined || state.real !== undefined) return undefined;
  return takeBody(state);
}

/**
 * A host `new URL` writes back unchanged: lower-case letters, digits, dots and
 * hyphens, whose last label starts with a letter (so it is no IPv4 address to
 * normalise) or which is a canonical dotted quad; a port without leading zeros.
 */
const PLAIN_HOST =
  /^(?:(?:[a-z0-9-]+\.)*[a-z][a-z0-9-]*\.?|(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d))(?::([1-9]\d{0,4}))?$/;
/** A request target with no dot segment, percent sign or other character `new URL` would rewrite. */
const PLAIN_TARGET = /^\/(?:[A-Za-z0-9_~-]+\/?)*(?:\?[A-Za-z0-9_~=&-]*)?$/;
/**
 * A `Host` that names a host and nothing else: a DNS name or
 * IPv4 address, or a bracketed IPv6 address, and an optional port. No `/`,
 * `?`, `#`, `@`, `\\` or space can get into the URL and move the path away
 * from the request line.
 */
const HOST_NAME = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * A Node request as Express and connect (Vite's dev server) hand it to a
 * middleware mounted under a prefix: they cut the prefix off `url` and keep
 * the request line's target in `originalUrl`.
 */
type MountedRequest = Pick<IncomingMessage, 'headers' | 'url' | 'httpVersion'> & { originalUrl?: unknown };

/**
 * The request line's target. Under `app.use('/sandbox', …)` the handler must
 * see `/sandbox/orders/new`, as the browser sent it, not the `/orders/new`
 * Express left in `url`: a web `Request` carries the whole URL, and a
 * sandbox with `basePath: '/sandbox'` would otherwise answer 404.
 */
function requestTarget(incoming: MountedRequest): string {
  const original = incoming.originalUrl;
  return typeof original === 'string' && original !== '' ? original : (incoming.url ?? '/');
}

/** The request's URL: the host from `Host` (checked), the path and query from the request line only. */
function requestUrl(incoming: MountedRequest): string | HttpError {
  // HTTP/1.1 requires a Host (RFC 9112 §3.2); an HTTP/1.0 request may come without one.
  if (incoming.headers.host === undefined && incoming.httpVersion !== '1.0') {
    return new HttpError('invalidRequest', 'Send a Host header.');
  }
  const host = incoming.headers.host ?? 'localhost';
  const target = originForm(requestTarget(incoming));
  if (target === undefined) return new HttpError('invalidRequest', 'The request target is not a path.');
  const plain = PLAIN_HOST.exec(host);
  const port = plain?.[1];
  if (plain && !host.includes('xn--') && (port === undefined || (port !== '80' && Number(port) <= 65_535))) {
    if (PLAIN_TARGET.test(target)) return `http://${host}${target}`;
  }
  if (host.length > 255 || !HOST_NAME.test(host) || Number(/:(\d+)$/.exec(host)?.[1] ?? 0) > 65_535) {
    return new HttpError(
      'invalidRequest',
      'The Host header must be a plain host name, with an optional port.',
    );
  }
  try {
    // Parsed as `new Request` would: the handler sees the same normalised URL (`/a/../b` is `/b`).
    const url = new URL(`http://${host}${target}`);
    // Only the request line routes: the path must be the target's, whatever the host was.
    return url.href;
  } catch {
    return new HttpError(
      'invalidRequest',
      'The Host header must be a plain host name, with an optional port.',
    );
  }
}

/** The path and query of a request target; an absolute-form target (a proxy's) gives its own. */
function originForm(target: string): string | undefined {
  if (target.startsWith('/')) return target;
  if (target === '*') return '/';
  if (!/^https?:\/\//i.test(target)) return undefined;
  try {
    const url = new URL(target);
    return `${url.pathname}${url.search}`;
  } catch {
    return undefined;
  }
}

// Shared by every response (a ServerResponse closes once): no closure per request.
function onResponseClose(this: ServerResponse & Partial<StateHolder>): void {
  const state = this[STATE];
  if (!state || this.writableFinished) return;
  state.clientGone = true;
  state.abort?.abort();
}

function signalOf(state: NodeRequestState): AbortSignal {
  if (!state.abort) {
    state.abort = new AbortController();
    if (state.clientGone) state.abort.abort();
  }
  return state.abort.signal;
}

function headersOfState(state: NodeRequestState): Headers {
  state.headers ??= lazyHeaders(state.incoming);
  return state.headers;
}

function urlOf(state: NodeRequestState): string {
  if (typeof state.url !== 'string') throw state.url;
  return state.url;
}

function realRequestOf(state: NodeRequestState): Request {
  if (!state.real) {
    state.real = new Request(urlOf(state), {
      method: state.method,
      headers: realHeaders(headersOfState(state)),
      // Node's buffers sit on plain ArrayBuffers; the DOM typings cannot know that.
      body: state.body && state.body.byteLength > 0 ? (state.body as Uint8Array<ArrayBuffer>) : undefined,
      signal: signalOf(state),
    });
    // The body was already handed out: the real request's body is used, as it would be.
    if (state.bodyTaken) state.real.arrayBuffer().catch(() => undefined);
  }
  return state.real;
}

/** The buffered body, once, as the body mixin would give it; undefined once the real request exists. */
function takeBody(state: NodeRequestState): Buffer {
  if (state.bodyTaken) throw new TypeError('Body is unusable: the body has already been read.');
  state.bodyTaken = true;
  return state.body ?? Buffer.alloc(0);
}

class NodeRequest {
  declare [STATE]: NodeRequestState;

  get method(): string {
    return this[STATE].method;
  }

  /** Throws the `400` of a Host that is not a plain host name: the handler's error path answers it. */
  get url(): string {
    return urlOf(this[STATE]);
  }

  get headers(): Headers {
    const state = this[STATE];
    return state.real ? state.real.headers : headersOfState(state);
  }

  get signal(): AbortSignal {
    return signalOf(this[STATE]);
  }

  get bodyUsed(): boolean {
    const state = this[STATE];
    return state.real ? state.real.bodyUsed : state.bodyTaken;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const state = this[STATE];
    if (state.real) return state.real.arrayBuffer();
    const body = takeBody(state);
    // A copy: small Node buffers share one pooled ArrayBuffer.
    return body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer;
  }

  async text(): Promise<string> {
    const state = this[STATE];
    return state.real ? state.real.text() : takeBody(state).toString('utf8');
  }

  async json(): Promise<unknown> {
    const state = this[STATE];
    return state.real ? state.real.json() : JSON.parse(takeBody(state).toString('utf8'));
  }
}

Object.setPrototypeOf(NodeRequest.prototype, Request.prototype);
// Its answer goes back through the Node listener, which writes a light JSON answer without a web Response.
Object.defineProperty(NodeRequest.prototype, FAST_JSON_ANSWER, { value: lightJsonResponse });
// Everything else a Request has is the real one's: body, clone(), formData(), cache, mode…
for (const key of Reflect.ownKeys(Request.prototype)) {
  if (key === 'constructor' || key === Symbol.toStringTag || Object.hasOwn(NodeRequest.prototype, key))
    continue;
  const descriptor = Object.getOwnPropertyDescriptor(Request.prototype, key);
  if (descriptor?.get) {
    Object.defineProperty(NodeRequest.prototype, key, {
      configurable: true,
      get(this: StateHolder) {
        return Reflect.get(realRequestOf(this[STATE]), key);
      },
    });
  } else if (typeof descriptor?.value === 'function') {
    Object.defineProperty(NodeRequest.prototype, key, {
      configurable: true,
      writable: true,
      value(this: StateHolder, ...args: unknown[]) {
        const real = realRequestOf(this[STATE]);
        return (Reflect.get(real, key) as (...params: unknown[]) => unknown).apply(real, args);
      },
    });
  }
}

// On Node 20, undici keeps a Request's insides under symbols (`new Request(request)`
// and `fetch(request)` read them): those too are the real request's.
for (const key of Object.getOwnPropertySymbols(new Request('http://localhost/'))) {
  Object.defineProperty(NodeRequest.prototype, key, {
    configurable: true,
    get(this: StateHolder) {
      return Reflect.get(realRequestOf(this[STATE]), key);
    },
  });
}
