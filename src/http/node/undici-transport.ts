/**
 * The relay's transport to the service on Node: undici's dispatcher API over
 * one keep-alive pool per process. It costs about a quarter of the CPU per
 * call of Node's global fetch, because it builds no web `Request`,
 * `Response`, stream or `AbortSignal`. Like a plain HTTP client it follows no
 * redirect (the service answers its POSTs directly; a 3xx is an error). It
 * goes through the proxy named by `HTTPS_PROXY`/`HTTP_PROXY` (minus
 * `NO_PROXY`) when one is set.
 */
import { Agent, type Dispatcher, EnvHttpProxyAgent, errors } from 'undici';
import { type HttpTransport, type TransportAnswer, TransportTimeoutError } from '../transport.js';

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
    if (signal?.aborted) return Promise.reject(signal.reason);
    const exchange = new Exchange(timeoutMs, signal);
    try {
      const { origin, path } = targetOf(url);
      const dispatcher = options.dispatcher ?? defaultDispatcher();
      dispatcher.dispatch({ origin, path, method: method as Dispatcher.HttpMethod, headers, body }, exchange);
    } catch (error) {
      exchange.fail(error as Error);
    }
    return exchange.answer;
  };
}

/**
 * One exchange, read whole as it arrives: the handler collects the answer's
 * chunks itself rather than through undici's `request()`, whose body is a
 * Node stream read back with `text()` (about 8 µs more a call). It keeps its
 * own time limit, as `withinTimeLimit` (transport.ts) does for a fetch,
 * without a closure per call: past `timeoutMs` it rejects with a
 * {@link TransportTimeoutError}, on the caller's abort with undici's abort error.
 *
 * It takes undici's calls in the form its HTTP/1 client makes them
 * (`onConnect`, `onHeaders`, `onData`, `onComplete`, `onError`; typed as
 * deprecated): given `onRequestStart` and the other newer ones instead,
 * undici wraps the handler and parses every answer's headers (and trailers)
 * into an object first, about 3 µs a call. Here the raw headers are kept as
 * they came, and only a header asked for is read.
 */
class Exchange implements Dispatcher.DispatchHandler {
  readonly answer: Promise<TransportAnswer>;
  #resolve!: (answer: TransportAnswer) => void;
  #reject!: (error: Error) => void;
  #abortRequest: ((error: Error) => void) | undefined;
  #aborted = false;
  #settled = false;
  #timedOut = false;
  readonly #timeoutMs: number;
  readonly #timer: ReturnType<typeof setTimeout>;
  readonly #signal: AbortSignal | undefined;
  readonly #onCallerAbort: (() => void) | undefined;
  #status = 0;
  #rawHeaders: readonly (Buffer | string)[] = [];
  readonly #chunks: Buffer[] = [];

  constructor(timeoutMs: number, signal: AbortSignal | undefined) {
    this.answer = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.#timeoutMs = timeoutMs;
    this.#timer = setTimeout(onTimeLimit, timeoutMs, this);
    this.#signal = signal;
    if (signal) {
      this.#onCallerAbort = () => this.abort();
      signal.addEventListener('abort', this.#onCallerAbort, { once: true });
    }
  }

  /** Stops the exchange (the caller's abort): it rejects at once. */
  abort(): void {
    this.#aborted = true;
    const reason = new errors.RequestAbortedError();
    this.#abortRequest?.(reason);
    this.fail(reason);
  }

  /** The time limit ran out: the exchange stops and rejects with a time-out, unless the caller aborted too. */
  timeUp(): void {
    this.#timedOut = true;
    this.abort();
  }

  /** Rejects the answer (once): a failure after the time limit ran out is the time-out. */
  fail(error: Error): void {
    if (!this.#finish()) return;
    const timedOut = this.#timedOut && !this.#signal?.aborted;
    this.#reject(timedOut ? new TransportTimeoutError(this.#timeoutMs) : error);
  }

  /** True the first time only: the time limit and the caller's signal are let go. */
  #finish(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    clearTimeout(this.#timer);
    if (this.#onCallerAbort) this.#signal?.removeEventListener('abort', this.#onCallerAbort);
    return true;
  }

  onConnect(abort: (error: Error) => void): void {
    this.#abortRequest = abort;
    if (this.#aborted) abort(new errors.RequestAbortedError());
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    // An informational answer (1xx) comes before the real one.
    if (statusCode >= 200) {
      this.#status = statusCode;
      this.#rawHeaders = rawHeaders;
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.#chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    if (!this.#finish()) return;
    const chunks = this.#chunks;
    const text =
      chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8');
    this.#resolve({ status: this.#status, header: rawHeaderReader(this.#rawHeaders), text });
  }

  onError(error: Error): void {
    this.fail(error);
  }
}

function onTimeLimit(exchange: Exchange): void {
  exchange.timeUp();
}

/**
 * `Headers.get` over the answer's raw headers (name, value, name, value…, as
 * bytes): every value of the name, in order, joined by ", "; names compared
 * lower-cased, values read as Latin-1, as undici's own parsing reads them.
 */
function rawHeaderReader(rawHeaders: readonly (Buffer | string)[]): (name: string) => string | null {
  return (name) => {
    const wanted = name.toLowerCase();
    let value: string | null = null;
    for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
      if (latin1(rawHeaders[index]).toLowerCase() !== wanted) continue;
      const next = latin1(rawHeaders[index + 1]);
      value = value === null ? next : `${value}, ${next}`;
    }
    return value;
  };
}

/** A raw header as text (a dispatcher other than undici's own may give strings). */
function latin1(raw: Buffer | string | undefined): string {
  return typeof raw === 'string' ? raw : (raw?.toString('latin1') ?? '');
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
