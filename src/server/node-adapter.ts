/**
 * Runs a web-standard handler (`Request` → `Response`) on `node:http`, so the
 * relay and the sandbox serve Node, Express and Fastify with the same code
 * they serve edge runtimes with.
 */
// Types only at module level: the relay imports this file, and edge runtimes have no node:http.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  errorResponse,
  NODE_ADAPTER_REQUEST,
  READ_HEADER,
  RESPONSE_HEADER_RECORD,
  RESPONSE_TEXT,
  TAKE_BUFFERED_BODY,
  type TextCarryingResponse,
} from './http.js';

/** Context a Node adapter passes beside the request. */
export interface NodeRequestContext {
  /** The TCP peer's address, for per-client limits. */
  clientAddress: string;
}

/** A web-standard handler, with the Node adapter's context when it runs on Node. */
export type WebHandler = (request: Request, context?: NodeRequestContext) => Promise<Response> | Response;

/** A `node:http` request listener; Express and Fastify accept it too. */
export type NodeListener = (request: IncomingMessage, response: ServerResponse) => void;

/** Options of {@link toNodeListener}. */
export interface NodeListenerOptions {
  /**
   * Largest body the adapter buffers before the handler sees it; the handler
   * may set a smaller limit of its own. Default 1 MiB.
   */
  maxBodyBytes?: number;
}

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Adapts a web-standard handler to a `node:http` request listener. */
export function toNodeListener(handler: WebHandler, options: NodeListenerOptions = {}): NodeListener {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  return (incoming, outgoing) => {
    serve(handler, incoming, outgoing, maxBodyBytes).catch((error: unknown) => {
      if (!outgoing.headersSent) {
        void writeResponse(outgoing, errorResponse('internalError', 'The server failed to answer.'));
      } else {
        outgoing.destroy(error instanceof Error ? error : undefined);
      }
    });
  };
}

async function serve(
  handler: WebHandler,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  maxBodyBytes: number,
): Promise<void> {
  const body = await readBody(incoming, maxBodyBytes);
  if (body === 'too-large') {
    await writeResponse(
      outgoing,
      errorResponse('payloadTooLarge', `The body is over ${maxBodyBytes} bytes.`),
      true,
    );
    return;
  }
  const request = nodeRequest(incoming, outgoing, body);
  const response = await handler(request, { clientAddress: incoming.socket.remoteAddress ?? 'unknown' });
  await writeResponse(outgoing, response);
}

function requestUrl(incoming: IncomingMessage): string {
  const host = incoming.headers.host ?? 'localhost';
  // Parsed as `new Request` would: the handler sees the same normalised URL (`/a/../b` is `/b`).
  return new URL(`http://${host}${incoming.url ?? '/'}`).href;
}

interface NodeRequestState {
  incoming: IncomingMessage;
  url: string;
  method: string;
  body: Buffer | undefined;
  headers: Headers | undefined;
  real: Request | undefined;
  bodyTaken: boolean;
  abort: AbortController | undefined;
  clientGone: boolean;
}

const NODE_REQUEST_STATE = Symbol('nodeRequestState');
type NodeRequestTarget = Request & { [NODE_REQUEST_STATE]: NodeRequestState };

function headersOf(state: NodeRequestState): Headers {
  state.headers ??= requestHeaders(state.incoming);
  return state.headers;
}

function signalOf(state: NodeRequestState): AbortSignal {
  if (!state.abort) {
    state.abort = new AbortController();
    if (state.clientGone) state.abort.abort();
  }
  return state.abort.signal;
}

function realRequestOf(state: NodeRequestState): Request {
  if (!state.real) {
    state.real = new Request(state.url, {
      method: state.method,
      headers: headersOf(state),
      // Node's buffers sit on plain ArrayBuffers; the DOM typings cannot know that.
      body: state.body && state.body.byteLength > 0 ? (state.body as Uint8Array<ArrayBuffer>) : undefined,
      signal: signalOf(state),
    });
    // The body was already handed out: the real request's body is used, as it would be.
    if (state.bodyTaken) state.real.arrayBuffer().catch(() => undefined);
  }
  return state.real;
}

// Called as `request[TAKE_BUFFERED_BODY]()`, so `this` is the request (the Proxy).
function takeBufferedBody(this: NodeRequestTarget): Uint8Array | undefined {
  const state = this[NODE_REQUEST_STATE];
  if (state.real || state.bodyTaken) return undefined;
  state.bodyTaken = true;
  return state.body ?? new Uint8Array(0);
}

// Called as `request[READ_HEADER](name)`, so `this` is the request (the Proxy).
function readHeader(this: NodeRequestTarget, name: string): string | null {
  const state = this[NODE_REQUEST_STATE];
  // Once built, the Headers is the truth: a middleware may have changed it.
  if (state.headers) return state.headers.get(name);
  const wanted = name.toLowerCase();
  if (isHiddenHeader(wanted)) return null;
  // As Headers.get answers: every value of the name, joined by ", " (Node has trimmed each).
  const raw = state.incoming.rawHeaders;
  let value: string | null = null;
  for (let index = 0; index < raw.length; index += 2) {
    if ((raw[index] as string).toLowerCase() !== wanted) continue;
    const next = raw[index + 1] as string;
    value = value === null ? next : `${value}, ${next}`;
  }
  return value;
}

// One handler for every request: no closures per request.
const nodeRequestHandler: ProxyHandler<NodeRequestTarget> = {
  get(target, key) {
    const state = target[NODE_REQUEST_STATE];
    switch (key) {
      case 'method':
        return state.method;
      case 'url':
        return state.url;
      case 'headers':
        return headersOf(state);
      case 'signal':
        return signalOf(state);
      case NODE_REQUEST_STATE:
        return state;
      case TAKE_BUFFERED_BODY:
        return takeBufferedBody;
      case READ_HEADER:
        return readHeader;
      case NODE_ADAPTER_REQUEST:
        return true;
    }
    const real = realRequestOf(state);
    const value: unknown = Reflect.get(real, key, real);
    return typeof value === 'function' && key !== 'constructor' ? value.bind(real) : value;
  },
  has(target, key) {
    return (
      key === TAKE_BUFFERED_BODY ||
      key === READ_HEADER ||
      key === NODE_ADAPTER_REQUEST ||
      Reflect.has(target[NODE_REQUEST_STATE].real ?? Request.prototype, key)
    );
  },
  set(target, key, value) {
    const real = realRequestOf(target[NODE_REQUEST_STATE]);
    return Reflect.set(real, key, value, real);
  },
};

type StatefulResponse = ServerResponse & { [NODE_REQUEST_STATE]?: NodeRequestState };

// Shared by every response (a ServerResponse closes once): no closure per request.
function onResponseClose(this: StatefulResponse): void {
  const state = this[NODE_REQUEST_STATE];
  if (!state || this.writableFinished) return;
  state.clientGone = true;
  state.abort?.abort();
}

/**
 * The handler's `Request`, built lazily. On Node 20, undici's `new Request`
 * with a body and a signal costs tens of microseconds (a web stream, a signal
 * follower): more than a small handler's own work (bench/results/sandbox.json).
 * This Proxy answers `method`, `url`, `headers` and `signal` from the Node
 * request, hands `readJsonBody` the buffered body and `headerOf` single
 * headers (no web Headers built), and builds the real `Request` the first
 * time anything else is touched, undici's internal fields included, so
 * `clone()`, `text()`, `new Request(request)` and `fetch(request)` still
 * work. It is `instanceof Request`. The idea is `@hono/node-server`'s.
 */
function nodeRequest(incoming: IncomingMessage, outgoing: ServerResponse, body: Buffer | undefined): Request {
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
  // The shopper's browser may go away mid-request; let the handler stop its upstream call.
  // The AbortController is made only if the handler reads `request.signal`.
  (outgoing as StatefulResponse)[NODE_REQUEST_STATE] = state;
  outgoing.on('close', onResponseClose);
  const target = Object.create(Request.prototype) as NodeRequestTarget;
  target[NODE_REQUEST_STATE] = state;
  return new Proxy(target, nodeRequestHandler);
}

/** HTTP/2 pseudo-headers and hop-by-hop fields are not for the handler. */
function isHiddenHeader(name: string): boolean {
  return name.startsWith(':') || /^(?:connection|keep-alive|transfer-encoding|upgrade)$/i.test(name);
}

function requestHeaders(incoming: IncomingMessage): Headers {
  const headers = new Headers();
  for (let index = 0; index < incoming.rawHeaders.length; index += 2) {
    const name = incoming.rawHeaders[index] as string;
    if (isHiddenHeader(name)) continue;
    headers.append(name, incoming.rawHeaders[index + 1] as string);
  }
  return headers;
}

interface BodyReading {
  maxBytes: number;
  chunks: Buffer[];
  received: number;
  resolve: (body: Buffer | 'too-large') => void;
  reject: (error: Error) => void;
}

const BODY_READING = Symbol('bodyReading');
type ReadingMessage = IncomingMessage & { [BODY_READING]?: BodyReading };

// Plain stream events, with listeners shared by every request, rather than
// `for await`: the async iterator costs more than a small handler's own work.
function readBody(incoming: IncomingMessage, maxBytes: number): Promise<Buffer | undefined | 'too-large'> {
  if (incoming.method === 'GET' || incoming.method === 'HEAD') return Promise.resolve(undefined);
  // Under a framework that already read the stream, 'end' will not come again.
  if (incoming.readableEnded) return Promise.resolve(Buffer.alloc(0));
  if (incoming.destroyed) return Promise.reject(new Error('The request was closed before its body ended.'));
  return new Promise((resolve, reject) => {
    (incoming as ReadingMessage)[BODY_READING] = { maxBytes, chunks: [], received: 0, resolve, reject };
    incoming.on('data', onBodyData);
    incoming.on('end', onBodyEnd);
    incoming.on('error', onBodyError);
    incoming.on('close', onBodyClose);
  });
}

function finishReading(incoming: ReadingMessage): BodyReading | undefined {
  const reading = incoming[BODY_READING];
  incoming[BODY_READING] = undefined;
  incoming.off('data', onBodyData);
  incoming.off('end', onBodyEnd);
  incoming.off('error', onBodyError);
  incoming.off('close', onBodyClose);
  return reading;
}

function onBodyData(this: ReadingMessage, chunk: Buffer): void {
  const reading = this[BODY_READING];
  if (!reading) return;
  reading.received += chunk.byteLength;
  if (reading.received > reading.maxBytes) {
    finishReading(this);
    // Read the rest into nothing, so the client, still sending, gets to read the 413
    // (which closes the connection) instead of a reset.
    this.resume();
    reading.resolve('too-large');
    return;
  }
  reading.chunks.push(chunk);
}

function onBodyEnd(this: ReadingMessage): void {
  const reading = finishReading(this);
  reading?.resolve(
    reading.chunks.length === 1 ? (reading.chunks[0] as Buffer) : Buffer.concat(reading.chunks),
  );
}

function onBodyError(this: ReadingMessage, error: Error): void {
  finishReading(this)?.reject(error);
}

function onBodyClose(this: ReadingMessage): void {
  finishReading(this)?.reject(new Error('The request was closed before its body ended.'));
}

async function writeResponse(
  outgoing: ServerResponse,
  response: Response,
  closeAfter = false,
): Promise<void> {
  const known = response as TextCarryingResponse;
  const headerRecord = known[RESPONSE_HEADER_RECORD];
  const headers: Record<string, string | string[]> = headerRecord ? { ...headerRecord } : {};
  if (!headerRecord) {
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const cookies = response.headers.getSetCookie();
    if (cookies.length > 0) headers['set-cookie'] = cookies;
  }
  if (closeAfter) headers.connection = 'close';
  // A jsonResponse carries its text: no need to read its web stream back.
  const text = known[RESPONSE_TEXT];
  const body =
    typeof text === 'string' && !response.bodyUsed
      ? text
      : response.body
        ? Buffer.from(await response.arrayBuffer())
        : undefined;
  // The whole body is known, so say its length rather than send it chunked.
  if (
    body !== undefined &&
    headers['content-length'] === undefined &&
    headers['transfer-encoding'] === undefined
  ) {
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  outgoing.writeHead(response.status, headers);
  outgoing.end(body);
}

/** A server started on loopback (or the given host), with its address and a `close()`. */
export interface RunningServer {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  port: number;
  server: Server;
  /** Stops accepting connections and closes idle ones. */
  close(): Promise<void>;
}

/** Starts a `node:http` server for a listener; `port: 0` picks a free port. */
export async function listen(
  listener: NodeListener,
  { port = 0, host = '127.0.0.1' }: { port?: number; host?: string } = {},
): Promise<RunningServer> {
  const { createServer } = await import('node:http');
  const server = createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
