/**
 * How the service client reaches the service: one exchange, its answer read
 * whole. A `fetch` is one transport ({@link fetchTransport}); on Node the
 * relay uses undici's (src/http/node/undici-transport.ts), which skips the
 * web streams a `Response` costs.
 */

/** One request to the service. */
export interface TransportRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
  /** Aborts the exchange, body reading included; the promise then rejects. */
  signal: AbortSignal;
}

/** The service's whole answer. */
export interface TransportAnswer {
  status: number;
  /** One header, as `Headers.get` answers it. */
  header(name: string): string | null;
  /** The body, read whole. */
  text: string;
}

/** Sends one request and reads its whole answer; rejects on a network failure or an abort. */
export type HttpTransport = (request: TransportRequest) => Promise<TransportAnswer>;

/** A transport on a `fetch` (the runtime's, or one the merchant gives). */
export function fetchTransport(fetchImpl: typeof fetch): HttpTransport {
  return async ({ url, method, headers, body, signal }) => {
    const response = await fetchImpl(url, { method, headers, body, signal });
    // Read inside the same call: a connection cut mid-body is a network failure, and the caller's time-out covers it.
    const text = await response.text();
    return { status: response.status, header: (name) => response.headers.get(name), text };
  };
}
