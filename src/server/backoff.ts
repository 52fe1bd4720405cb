/**
 * Waiting between retries: full-jitter exponential backoff, so many clients
 * that failed together do not retry together, and `Retry-After` parsing.
 */

/** Backoff bounds. */
export interface BackoffOptions {
  /** Upper bound of the first wait. */
  baseMs: number;
  /** Upper bound of any wait. */
  capMs: number;
}

/** Default bounds: up to 200 ms, then 400, 800… never over 5 s. */
export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 200, capMs: 5_000 };

/**
 * The wait before retry number `retry` (0 for the first retry): a uniform
 * draw from zero to `min(cap, base · 2^retry)` ("full jitter").
 */
export function fullJitterDelay(
  retry: number,
  random: () => number = Math.random,
  { baseMs, capMs }: BackoffOptions = DEFAULT_BACKOFF,
): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}

/**
 * Milliseconds a `Retry-After` value asks for: delta-seconds or an HTTP date
 * (RFC 9110 §10.2.3). Undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
