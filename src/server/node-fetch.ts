/**
 * An optional `fetch` for Node, on `node:http`/`node:https` with keep-alive
 * agents. Node 20's built-in fetch costs several times a plain `http.request`
 * per call; a relay that calls the service on every lookup pays that on every
 * poll. The relay uses it by default on Node; give it to the service client
 * as its `fetch` option on Node. Edge runtimes keep their own fetch.
 * `node:http` is imported on first use, so importing this module never
 * breaks an edge bundle.
 *
 * Only what the service client needs: string or bytes bodies, an AbortSignal,
 * and the whole answer read before the promise resolves.
 */
import type { ClientRequest, Agent as HttpAgent, IncomingMessage } from 'node:http';

/** Options of {@link createNodeFetch}. */
export interface NodeFetchOptions {
  /** Most sockets per origin. Default 256. */
  maxSockets?: number;
}

interface Transport {
  request: typeof import('node:http').request;
  agent: HttpAgent;
}

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);
const UTF8_DECODER = new TextDecoder();

/**
 * A fetch on `node:http(s)` with keep-alive. Rejects with a TypeError for a
 * network failure (as fetch does) and with the signal's reason on abort.
 */
export function createNodeFetch(options: NodeFetchOptions = {}): typeof fetch {
  const maxSockets = options.maxSockets ?? 256;
  const loading = new Map<string, Promise<Transport>>();
  // Once a module is loaded, calls take it without waiting a turn.
  const loaded = new Map<string, Transport>();

  function load(protocol: 'http:' | 'https:'): Promise<Transport> {
    let transport = loading.get(protocol);
    if (!transport) {
      transport = (protocol === 'https:' ? import('node:https') : import('node:http')).then((module) => {
        const ready = {
          request: module.request as Transport['request'],
          agent: new module.Agent({ keepAlive: true, maxSockets }),
        };
        loaded.set(protocol, ready);
        return ready;
      });
      loading.set(protocol, transport);
    }
    return transport;
  }

  return async (input, init = {}) => {
    const target = targetOf(input);
    const body = checkedBody(init.body);
    const headers = headerRecord(init.headers);
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const signal = init.signal ?? undefined;
    signal?.throwIfAborted();
    const { request, agent } = loaded.get(target.protocol) ?? (await load(target.protocol));
    // The signal may have aborted while the module loaded.
    signal?.throwIfAborted();
    return new Promise<Response>((resolve, reject) => {
      const exchange = new Exchange(resolve, reject, signal);
      const outgoing = request({ ...target, method: init.method ?? 'GET', headers, agent });
      exchange.outgoing = outgoing;
      (outgoing as WithExchange<ClientRequest>)[EXCHANGE] = exchange;
      outgoing.once('response', onResponse);
      outgoing.on('error', onRequestError);
      signal?.addEventListener('abort', exchange);
      outgoing.end(body);
    });
  };
}

/** Where `node:http` sends a URL, minus method, headers and agent. */
interface Target {
  protocol: 'http:' | 'https:';
  hostname: string;
  port: string;
  path: string;
}

/** The service client calls a handful of URLs again and again: each is parsed once. */
const targets = new Map<string, Target>();
const MAX_REMEMBERED_TARGETS = 64;

function targetOf(input: RequestInfo | URL): Target {
  if (typeof input !== 'string' && !(input instanceof URL)) {
    throw new TypeError('createNodeFetch: pass the URL as a string or URL.');
  }
  const key = typeof input === 'string' ? input : input.href;
  let target = targets.get(key);
  if (target) return target;
  const url = new URL(key);
  const protocol = url.protocol;
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new TypeError(`createNodeFetch: ${protocol} URLs are not supported.`);
  }
  target = {
    protocol,
    // node:http wants an IPv6 host without the URL's brackets.
    hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port,
    path: `${url.pathname}${url.search}`,
  };
  if (targets.size >= MAX_REMEMBERED_TARGETS) targets.clear();
  targets.set(key, target);
  return target;
}

const EXCHANGE = Symbol('exchange');
type WithExchange<Emitter> = Emitter & { [EXCHANGE]?: Exchange };

/**
 * One request and its answer. The stream listeners below are shared by every
 * exchange and find it on the stream, and the exchange is itself the abort
 * listener (`handleEvent`): no closures per call.
 */
class Exchange {
  outgoing: ClientRequest | undefined;
  readonly chunks: Uint8Array[] = [];
  #settled = false;

  constructor(
    readonly resolve: (response: Response) => void,
    readonly reject: (reason: unknown) => void,
    readonly signal: AbortSignal | undefined,
  ) {}

  /** The signal aborted: reject with its reason, as fetch does, and drop the connection. */
  handleEvent(): void {
    if (this.#settle()) this.reject(this.signal?.reason);
    this.outgoing?.destroy();
  }

  fail(cause: unknown): void {
    if (this.#settle()) this.reject(new TypeError('fetch failed', { cause }));
  }

  succeed(response: Response): void {
    if (this.#settle()) this.resolve(response);
  }

  /** True the first time only: an exchange ends once. */
  #settle(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    this.signal?.removeEventListener('abort', this);
    return true;
  }
}

function onRequestError(this: WithExchange<ClientRequest>, error: Error): void {
  this[EXCHANGE]?.fail(error);
}

// Plain stream events rather than `for await`: the async iterator costs more than the rest of a small answer.
function onResponse(this: WithExchange<ClientRequest>, incoming: WithExchange<IncomingMessage>): void {
  incoming[EXCHANGE] = this[EXCHANGE];
  incoming.on('data', onAnswerData);
  incoming.on('error', onAnswerError);
  incoming.on('close', onAnswerClose);
  incoming.on('end', onAnswerEnd);
}

function onAnswerData(this: WithExchange<IncomingMessage>, chunk: Uint8Array): void {
  this[EXCHANGE]?.chunks.push(chunk);
}

function onAnswerError(this: WithExchange<IncomingMessage>, error: Error): void {
  this[EXCHANGE]?.fail(error);
}

function onAnswerClose(this: WithExchange<IncomingMessage>): void {
  // A connection cut mid-answer closes the stream without completing the message.
  if (!this.complete)
    this[EXCHANGE]?.fail(new Error('The connection closed before the answer was complete.'));
}

function onAnswerEnd(this: WithExchange<IncomingMessage>): void {
  const exchange = this[EXCHANGE];
  if (exchange && this.complete) exchange.succeed(toResponse(this, concat(exchange.chunks)));
}

/** Headers as the plain object `node:http` takes; a plain object of strings is copied as is. */
function headerRecord(init: HeadersInit | undefined): Record<string, string> {
  const record: Record<string, string> = {};
  if (init === undefined) return record;
  if (!(init instanceof Headers) && !Array.isArray(init) && typeof init === 'object') {
    for (const [name, value] of Object.entries(init)) record[name.toLowerCase()] = String(value);
    return record;
  }
  new Headers(init).forEach((value, name) => {
    record[name] = value;
  });
  return record;
}

/** The body as `node:http` writes it: a string goes as is, so the head and body leave in one write. */
function checkedBody(body: BodyInit | null | undefined): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new TypeError('createNodeFetch: the body must be a string, a Uint8Array or an ArrayBuffer.');
}

/** The chunks as one plain Uint8Array, not a Buffer: a Buffer's `slice` shares memory, a Uint8Array's copies. */
function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const only = chunks.length === 1 ? chunks[0] : undefined;
  if (only) return new Uint8Array(only.buffer, only.byteOffset, only.byteLength);
  let length = 0;
  for (const chunk of chunks) length += chunk.byteLength;
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function toResponse(incoming: IncomingMessage, bytes: Uint8Array): Response {
  const status = incoming.statusCode ?? 0;
  return new BufferedResponse(
    NULL_BODY_STATUSES.has(status) ? new Uint8Array(0) : bytes,
    status,
    incoming.statusMessage ?? '',
    incoming.rawHeaders,
  );
}

/**
 * A Response over bytes already read. On Node 20 `new Response(bytes)` builds
 * a web stream for the body, which costs more than the rest of a small call;
 * this one keeps the bytes and builds the stream only if `body` is asked for.
 */
class BufferedResponse extends Response {
  readonly #bytes: Uint8Array;
  #used = false;
  #stream: ReadableStream<Uint8Array<ArrayBuffer>> | undefined;

  #rawHeaders: readonly string[] | undefined;
  #headers: Headers | undefined;

  constructor(bytes: Uint8Array, status: number, statusText: string, rawHeaders?: readonly string[]) {
    super(null, { status, statusText });
    this.#bytes = bytes;
    this.#rawHeaders = rawHeaders;
  }

  /** Built on first read: a caller that only needs the status and body never pays for a Headers. */
  override get headers(): Headers {
    if (this.#headers === undefined) {
      this.#headers = new Headers();
      const raw = this.#rawHeaders ?? [];
      for (let index = 0; index < raw.length; index += 2) {
        this.#headers.append(raw[index] as string, raw[index + 1] as string);
      }
    }
    return this.#headers;
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> | null {
    if (this.#stream === undefined) {
      if (this.#bytes.byteLength === 0 || this.#used) return null;
      const bytes = this.#take();
      this.#stream = new ReadableStream({
        start(controller) {
          controller.enqueue(bytes);
          controller.close();
        },
      });
    }
    return this.#stream;
  }

  override get bodyUsed(): boolean {
    return this.#used;
  }

  override async arrayBuffer(): Promise<ArrayBuffer> {
    return this.#take().buffer;
  }

  override async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return this.#take();
  }

  override async blob(): Promise<Blob> {
    return new Blob([this.#take()], { type: this.headers.get('content-type') ?? '' });
  }

  override async text(): Promise<string> {
    this.#markUsed();
    return UTF8_DECODER.decode(this.#bytes);
  }

  override async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  override clone(): Response {
    if (this.#used) throw new TypeError('The body of this Response was already used.');
    const copy = new BufferedResponse(this.#bytes.slice(), this.status, this.statusText);
    this.headers.forEach((value, name) => {
      copy.headers.append(name, value);
    });
    return copy;
  }

  /** A fresh copy of the bytes, once: a body is read one time, as fetch's is. */
  #take(): Uint8Array<ArrayBuffer> {
    this.#markUsed();
    return this.#bytes.slice();
  }

  #markUsed(): void {
    if (this.#used) throw new TypeError('The body of this Response was already used.');
    this.#used = true;
  }
}
