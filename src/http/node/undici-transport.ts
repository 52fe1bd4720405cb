/**
 * The relay's transport to the service on Node: undici's `request` over one
 * keep-alive pool per process. It costs about a fifth of the CPU per call of
 * Node's global fetch, because it builds no web `Request`, `Response` or
 * stream. Like a plain HTTP client it follows no redirect (the service answers
 * its POSTs directly; a 3xx is an error). It goes through the proxy named by
 * `HTTPS_PROXY`/`HTTP_PROXY` (minus `NO_PROXY`) when one is set.
 */
import { Agent, type Dispatcher, EnvHttpProxyAgent, request } from 'undici';
import type { HttpTransport } from '../transport.js';

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

/** A transport on undici's `request`. */
export function createUndiciTransport(options: UndiciTransportOptions = {}): HttpTransport {
  return async ({ url, method, headers, body, signal }) => {
    const answer = await request(url, {
      method: method as Dispatcher.HttpMethod,
      headers,
      body,
      signal,
      dispatcher: options.dispatcher ?? defaultDispatcher(),
    });
    const text = await answer.body.text();
    const answerHeaders = answer.headers;
    return {
      status: answer.statusCode,
      header(name) {
        const value = answerHeaders[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
      },
      text,
    };
  };
}
