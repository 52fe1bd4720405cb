/**
 * How the service client reaches the service: one exchange within a time
 * limit, its answer read whole. A `fetch` is one transport
 * ({@link fetchTransport}); on Node the relay uses undici's
 * (src/http/node/undici-transport.ts), which skips the web streams,
 * `Request`, `Response` and `AbortSignal` a fetch costs.
 */
import { endsWith, timedWait } from '../shared/answered-within.js';
import { systemClock } from '../shared/clock.js';

/** One request to the service. */
export interface TransportRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
  /** Time allowed for the whole exchange, answer body included; past it the promise rejects with a {@link TransportTimeoutError}. */
  timeoutMs: number;
  /** The caller's signal: aborting it aborts the exchange, and the promise rejects. */
  signal?: AbortSignal | undefined;
}

/** The service's whole answer. */
export interface TransportAnswer {
  status: number;
  /** One header, as `Headers.get` answers it. */
  header(name: string): string | null;
  /** The body, read whole. */
  text: string;
}

/** Sends one request and reads its whole answer; rejects on a network failure, a time-out or an abort. */
export type HttpTransport = (request: TransportRequest) => Promise<TransportAnswer>;

/** The exchange took longer than its `timeoutMs`. */
export class TransportTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`No complete answer within ${timeoutMs} ms.`);
    this.name = 'TransportTimeoutError';
  }
}

/**
 * Runs `exchange` within `timeoutMs` and the caller's `signal`: on either,
 * `abort` is called (it must make the exchange reject). A time-out rejects
 * with a {@link TransportTimeoutError}, a caller's abort with what the
 * exchange rejected with.
 */
export async function withinTimeLimit<Answer>(
  timeoutMs: number,
  signal: AbortSignal | undefined,
  abort: (reason?: unknown) => void,
  exchange: () => Promise<Answer>,
): Promise<Answer> {
  signal?.throwIfAborted();
  let timedOut = false;
  const onCallerAbort = () => abort(signal?.reason);
  signal?.addEventListener('abort', onCallerAbort, { once: true });
  try {
    const answer = exchange();
    // Past the limit the exchange is aborted, and its end (a rejection) awaited all the same.
    const onTime = () => {
      timedOut = true;
      abort();
      return answer;
    };
    return await timedWait(systemClock, timeoutMs, onTime, endsWith(answer));
  } catch (error) {
    if (timedOut && !signal?.aborted) throw new TransportTimeoutError(timeoutMs);
    throw error;
  } finally {
    signal?.removeEventListener('abort', onCallerAbort);
  }
}

/** A transport on a `fetch` (the runtime's, or one the merchant gives). */
export function fetchTransport(fetchImpl: typeof fetch): HttpTransport {
  return ({ url, method, headers, body, timeoutMs, signal }) => {
    const controller = new AbortController();
    return withinTimeLimit(
      timeoutMs,
      signal,
      (reason) => controller.abort(reason),
      async () => {
        const response = await fetchImpl(url, { method, headers, body, signal: controller.signal });
        // Read inside the time limit: a connection cut mid-body is a network failure.
        const text = await response.text();
        return { status: response.status, header: (name: string) => response.headers.get(name), text };
      },
    );
  };
}
