/**
 * The relay's transport to the service on Node: undici's dispatcher API over
 * one keep-alive pool per process. It costs about a quarter of the CPU per
 * call of Node's global fetch, because it builds no web `Request`,
 * `Response`, stream or `AbortSignal`. Like a plain HTTP client it follows no
 * redirect (the service answers its POSTs directly; a 3xx is an error). It
 * goes through the proxy named by `HTTPS_PROXY`/`HTTP_PROXY` (minus
 * `NO_PROXY`) when one is set.
 */
import { EventEmitter } from 'node:events';
import { Agent, type Dispatcher, EnvHttpProxyAgent } from 'undici';
import { type HttpTransport, withinTimeLimit } from '../transport.js';

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
    // undici takes an EventEmitter as its abort signal: far cheaper than an AbortController per call.
    const abort = new EventEmitter();
    return withinTimeLimit(
      timeoutMs,
      signal,
      () => abort.emit('abort'),
      async () => {
        const { origin, path } = targetOf(url);
        const answer = await (options.dispatcher ?? defaultDispatcher()).request({
          origin,
          path,
          method: method as Dispatcher.HttpMethod,
          headers,
          body,
          signal: abort,
        });
        const text = await answer.body.text();
        return { status: answer.statusCode, header: (name: string) => headerOf(answer.headers, name), text };
      },
    );
  };
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
