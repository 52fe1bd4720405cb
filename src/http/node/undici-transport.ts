/**
 * The relay's transport to the service on Node: undici's dispatcher API over
 * one keep-alive pool per process. It costs about a quarter of the CPU per
 * call of Node's global fetch, because it builds no web `Request`,
 * `Response`, stream or `AbortSignal`. Like a plain HTTP client it follows no
 * redirect (the service answers its POSTs directly; a 3xx is an error). It
 * goes through the proxy named by `HTTPS_PROXY`/`HTTP_PROXY` (minus
 * `NO_PROXY`) when one is set.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { Agent, type Dispatcher, EnvHttpProxyAgent, errors } from 'undici';
import { type HttpTransport, type TransportAnswer, withinTimeLimit } from '../transport.js';

/** Options of {@link createUndiciTransport}. */
export interface UndiciTransportOptions {
  /** The undici dispatcher (an `Agent`, `ProxyAgent`, `MockAgent`…). Default: one shared per process. */
  dispatcher?: Dispatcher;
}

/** Most connections per origin of the shared pool. */
const MAX_CONNECTIONS = 256;
const PROXY_VARIABLES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'];

let sharedDispatcher: Dispatcher | undefined;

/** One dispatcher for every relay of the process, as undici's global one is for fetch. */
function defaultDispatcher(): Dispatcher {
  if (!sharedDispatcher) {
    const proxied = PROXY_VARIABLES.some((name) => process.env[name]);
    sharedDispatcher = proxied
      ? new EnvHttpProxyAgent({ connections: MAX_CONNECTIONS })
      : new Agent({ connections: MAX_CONNECTIONS });
  }
  return sharedDispatcher;
}

/** A transport on undici's dispatcher API. */
export function createUndiciTransport(options: UndiciTransportOptions = {}): HttpTransport {
  return ({ url, method, headers, body, timeoutMs, signal }) => {
    const exchange = new Exchange();
    return withinTimeLimit(
      timeoutMs,
      signal,
      () => exchange.abort(),
      () => {
        const { origin, path } = targetOf(url);
        const dispatcher = options.dispatcher ?? defaultDispatcher();
        dispatcher.dispatch(
          { origin, path, method: method as Dispatcher.HttpMethod, headers, body },
          exchange,
        );
        return exchange.answer;
      },
    );
  };
}

/**
 * One exchange, read whole as it arrives: the handler collects the answer's
 * chunks itself rather than through undici's `request()`, whose body is a
 * Node stream read back with `text()` (about 8 µs more a call).
 */
class Exchange implements Dispatcher.DispatchHandler {
  readonly answer: Promise<TransportAnswer>;
  #resolve!: (answer: TransportAnswer) => void;
  #reject!: (error: Error) => void;
  #controller: Dispatcher.DispatchController | undefined;
  #aborted = false;
  #status = 0;
  #headers: IncomingHttpHeaders = {};
  readonly #chunks: Buffer[] = [];

  constructor() {
    this.answer = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  /** Stops the exchange (a time-out or the caller's abort): it rejects at once. */
  abort(): void {
    this.#aborted = true;
    const reason = new errors.RequestAbortedError();
    this.#controller?.abort(reason);
    this.#reject(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#aborted) controller.abort(new errors.RequestAbortedError());
  }

  onResponseStart(_controller: unknown, statusCode: number, headers: IncomingHttpHeaders): void {
    // An informational answer (1xx) comes before the real one.
    if (statusCode < 200) return;
    this.#status = statusCode;
    this.#headers = headers;
  }

  onResponseData(_controller: unknown, chunk: Buffer): void {
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    const chunks = this.#chunks;
    const text =
      chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8');
    const headers = this.#headers;
    this.#resolve({ status: this.#status, header: (name) => headerOf(headers, name), text });
  }

  onResponseError(_controller: unknown, error: Error): void {
    this.#reject(error);
  }
}

/** The service client calls a handful of URLs again and again: each is split once. */
const targets = new Map<string, { origin: string; path: string }>();
const MAX_REMEMBERED_TARGETS = 64;

function targetOf(url: string): { origin: string; path: string } {
  let target = targets.get(url);
  if (!target) {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new TypeError(`Only http: and https: URLs can be called; got ${parsed.protocol}`);
    }
    target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
    if (targets.size >= MAX_REMEMBERED_TARGETS) targets.clear();
    targets.set(url, target);
  }
  return target;
}

/** One header of undici's answer (lower-cased names), as `Headers.get` answers it. */
function headerOf(headers: Record<string, string | string[] | undefined>, name: string): string | null {
  const value = headers[name.toLowerCase()];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}
