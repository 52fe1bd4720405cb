/**
 * Per-client limits of the relay (contract §3, §7): one token per request
 * from the client's bucket, a `429` with `Retry-After` when there is none. A
 * broken shared store lets requests through and warns: it must not stop sales.
 */
import type { ConnectionInfo } from '../http/handler.js';
import { HttpError } from '../http/http-error.js';
import { RETRY_AFTER_HEADER } from '../shared/service-contract.js';
import type { RateLimitDecision } from './rate-limiter.js';
import type { RelayConfig } from './relay-config.js';
import type { RelayRoute } from './relay-events.js';

/** Takes a token for this client on `route`; throws a reported `429` when there is none. */
export async function takeClientToken(
  config: RelayConfig,
  route: RelayRoute,
  request: Request,
  connection: ConnectionInfo | undefined,
): Promise<void> {
  const rule = config.rules[route];
  if (!rule) return;
  let clientKey = config.clientAddressOf(request, connection);
  if (!clientKey) {
    clientKey = 'shared';
    config.reporter.warnOnce(
      'rate_limit_shared_key',
      'The client address is unknown (no connection info from the runtime and no rateLimit.clientAddress): every client shares one rate-limit bucket. Give rateLimit.clientAddress.',
    );
  }
  let decision: RateLimitDecision;
  try {
    const taken = config.store.take(`${route}:${clientKey}`, rule, config.now());
    // The memory store answers at once: no turn of the event loop for it.
    decision = isPromiseLike(taken) ? await taken : taken;
  } catch (error) {
    config.reporter.warnOnce(
      'rate_limit_store_failed',
      'The rate-limit store failed; requests are not limited.',
      error,
    );
    return;
  }
  if (decision.allowed) return;
  throw config.reporter.report(
    { type: 'rate_limited', route, clientKey, retryAfterMs: decision.retryAfterMs },
    rateLimited(decision.retryAfterMs),
  );
}

/** `429` with `Retry-After` in whole seconds, at least one (contract §3). */
export function rateLimited(retryAfterMs: number): HttpError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new HttpError('rateLimited', `Too many requests. Try again in ${seconds} s.`, {
    headers: { [RETRY_AFTER_HEADER]: String(seconds) },
  });
}

/** True for a promise or any thenable, as `await` sees them. */
function isPromiseLike<Value>(value: Value | PromiseLike<Value>): value is PromiseLike<Value> {
  return typeof (value as Partial<PromiseLike<Value>>).then === 'function';
}
