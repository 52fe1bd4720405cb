/**
 * Waiting between retries, for the element and the server alike: exponential
 * backoff with jitter, so clients that failed together do not retry in step,
 * and a wait that an `AbortSignal` cuts short. No imports: safe in the browser bundle.
 */

/** The longest wait before retry number `retry` (0 for the first): `base · 2^retry`, never over `cap`. */
function backoffCeiling(retry: number, baseMs: number, capMs: number): number {
  return Math.min(capMs, baseMs * 2 ** retry);
}

/** "Full jitter": a uniform draw from zero to the ceiling. */
export function fullJitterDelay(retry: number, baseMs: number, capMs: number, random = Math.random): number {
  return Math.floor(random() * backoffCeiling(retry, baseMs, capMs));
}

/** "Equal jitter": half the ceiling, plus up to the other half at random; never less than half. */
export function equalJitterDelay(retry: number, baseMs: number, capMs: number): number {
  const ceiling = backoffCeiling(retry, baseMs, capMs);
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
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
