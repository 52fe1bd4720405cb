/**
 * An optional `fetch` for Node, on `node:http`/`node:https` with keep-alive
 * agents. Node 20's built-in fetch costs several times a plain `http.request`
 * per call; a relay that calls the service on every lookup pays that on every
 * poll. Give it as the `fetch` option of the relay or the service client on
 * Node; edge runtimes keep their own fetch. `node:http` is imported on first
 * use, so importing this module never breaks an edge bundle.
 *
 * Only what the service client needs: string or bytes bodies, an AbortSignal,
 * and the whole answer read before the promise resolves.
 */
import type { Agent as HttpAgent, IncomingMessage } from 'node:http';

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

/**
 * A fetch on `node:http(s)` with keep-alive. Rejects with a TypeError for a
 * network failure (as fetch does) and with the signal's reason on abort.
 */
export function createNodeFetch(options: NodeFetchOptions = {}): typeof fetch {
  const maxSockets = options.maxSockets ?? 256;
  const transports = new Map<string, Promise<Transport>>();

  function transportFor(protocol: string): Promise<Transport> {
    let transport = transports.get(protocol);
    if (!transport) {
      transport = (protocol === 'https:' ? import('node:https') : import('node:http')).then((module) => ({
        request: module.request as Transport['request'],
        agent: new module.Agent({ keepAlive: true, maxSockets }),
      }));
      transports.set(protocol, transport);
    }
    return transport;
  }

  return async (input, init = {}) => {
    if (typeof input !== 'string' && !(input instanceof URL)) {
      throw new TypeError('createNodeFetch: pass the URL as a string or URL.');
    }
    const url = new URL(input);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new TypeError(`createNodeFetch: ${url.protocol} URLs are not supported.`);
    }
    const body = bodyBytes(init.body);
    const headers = headerRecord(init.headers);
    if (body) headers['content-length'] = String(body.byteLength);
    const signal = init.signal ?? undefined;
    signal?.throwIfAborted();
    const { request, agent } = await transportFor(url.protocol);

    return new Promise<Response>((resolve, reject) => {
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        outcome();
      };
      const fail = (error: unknown) => settle(() => reject(new TypeError('fetch failed', { cause: error })));
      const onAbort = () => {
        settle(() => reject(signal?.reason));
        outgoing.destroy();
      };
      const target = {
        protocol: url.protocol,
        // node:http wants an IPv6 host without the URL's brackets.
        hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: init.method ?? 'GET',
        headers,
        agent,
      };
      const outgoing = request(target, (incoming) => {
        readAnswer(incoming).then(
          (bytes) => settle(() => resolve(toResponse(incoming, bytes))),
          (error: unknown) => fail(error),
        );
      });
      outgoing.once('error', fail);
      signal?.addEventListener('abort', onAbort, { once: true });
      outgoing.end(body);
    });
  };
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

function bodyBytes(body: BodyInit | null | undefined): Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return new TextEncoder().encode(body);
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new TypeError('createNodeFetch: the body must be a string, a Uint8Array or an ArrayBuffer.');
}

async function readAnswer(incoming: IncomingMessage): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of incoming as AsyncIterable<Uint8Array>) {
    chunks.push(chunk);
    length += chunk.byteLength;
  }
  // A connection cut mid-answer ends the stream without completing the message.
  if (!incoming.complete) throw new Error('The connection closed before the answer was complete.');
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
    return new TextDecoder().decode(this.#bytes);
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
