/**
 * The relay's limits at request time: one token per
 * request from the client's bucket, one slot per payment prompt in the
 * number's window, a `429` with `Retry-After` when there is none. A failing
 * shared store must not stop sales, nor lift the limits: this process's
 * memory keeps them meanwhile, and the merchant is warned.
 */
import type { ConnectionInfo } from '../../http/handler.js';
import { HttpError } from '../../http/http-error.js';
import { RETRY_AFTER_HEADER } from '../../shared/service-contract.js';
import type { RelayRoute } from '../events/relay-events.js';
import { RelayRefusal } from '../events/relay-refusal.js';
import type { RelayReporter } from '../events/relay-reporter.js';
import type { RateLimitDecision, RateLimitStore } from './rate-limiter.js';
import type { LimitedRoute, RelayLimits } from './relay-limit-config.js';

/** The `param` of a refused prompt: the number the shopper can change. */
export const PROMPT_LIMIT_PARAM = 'payment_method_data.mobile_money.number';

/** What the limits read at request time: the checked limits, and where setup warnings go. */
export interface LimitsConfig extends RelayLimits {
  readonly reporter: RelayReporter;
}

/**
 * Takes a token for this client on `route`; throws a `429` refusal
 * (`rate_limited`) when there is none. A store that answers at once (the
 * memory store) is answered at once, without a promise: the caller awaits
 * what it returns either way.
 */
export function takeClientToken(
  config: LimitsConfig,
  route: LimitedRoute,
  request: Request,
  connection: ConnectionInfo | undefined,
): void | Promise<void> {
  const rule = config.rules[route];
  if (!rule) return;
  const clientKey = config.clientKeyOf(request, connection);
  if (clientKey === undefined) {
    // One bucket for every shopper would let ten shoppers close the shop: this
    // request goes unlimited per client; the per-number prompt limit still holds.
    config.reporter.warnOnce(
      'rate_limit_no_client_address',
      'The client address is unknown (the runtime gave none, and rateLimit.clientAddress is not set or answered undefined): requests are not limited per client. Give rateLimit.clientAddress, and check the header it reads reaches the relay; behind proxies that append X-Forwarded-For, trustProxy as a hop count works without a peer (docs/security.md, Client address recipes).',
    );
    return;
  }
  const key = `${route}:${clientKey}`;
  const decided = decide(config, (store) => store.take(key, rule, config.clock.now()));
  if (isPromiseLike(decided))
    return decided.then(({ decision }) => admit(config, route, clientKey, decision));
  admit(config, route, clientKey, decided.decision);
}

/** Returns when `decision` lets the client's request through; throws its `429` refusal otherwise. */
function admit(
  config: LimitsConfig,
  route: RelayRoute,
  clientKey: string,
  decision: RateLimitDecision,
): void {
  if (decision.allowed) return;
  if (decision.storeFull) warnStoreFull(config);
  throw new RelayRefusal(rateLimited(decision.retryAfterMs), {
    type: 'rate_limited',
    route,
    clientKey,
    retryAfterMs: decision.retryAfterMs,
  });
}

/** A payment prompt counted for an attempt; `release` gives its slot back when no prompt went out. */
export interface PromptSlot {
  /** Gives the slot back if this request took it (not an earlier try of the attempt). Never rejects. */
  release(): Promise<void>;
}

const NO_SLOT: PromptSlot = { release: async () => undefined };

/**
 * Counts one payment prompt to `internationalNumber` for the attempt `attemptKey`
 * (a retry of that attempt is not a new prompt); throws a `429` refusal (`rate_limited`) over the limit.
 */
export async function takePromptSlot(
  config: LimitsConfig,
  internationalNumber: string,
  attemptKey: string,
): Promise<PromptSlot> {
  const rule = config.promptRule;
  if (!rule) return NO_SLOT;
  const numberKey = await config.promptKeyOf(internationalNumber);
  const key = `prompt:${numberKey}`;
  const { decision, store } = await decide(config, (each) =>
    each.takeSlot(key, attemptKey, rule, config.clock.now()),
  );
  if (decision.allowed) return decision.newSlot ? slotIn(store, key, attemptKey) : NO_SLOT;
  if (decision.storeFull) warnStoreFull(config);
  // At the bound, the number itself is not over its limit: the shopper hears "busy", not "your phone".
  const answer = decision.storeFull
    ? rateLimited(decision.retryAfterMs)
    : tooManyPaymentRequests(decision.retryAfterMs);
  throw new RelayRefusal(answer, {
    type: 'rate_limited',
    route: 'create',
    clientKey: key,
    retryAfterMs: decision.retryAfterMs,
  });
}

/** The slot `member` took in `store`'s window `key`. */
function slotIn(store: RateLimitStore, key: string, member: string): PromptSlot {
  return {
    async release() {
      try {
        await store.releaseSlot?.(key, member);
      } catch {
        // A slot that cannot be given back stays spent: the limit errs on the phone owner's side.
      }
    },
  };
}

function warnStoreFull(config: LimitsConfig): void {
  config.reporter.warnOnce(
    'rate_limit_store_full',
    'The in-memory rate-limit store holds as many live limits as its maxKeys allows: new clients are refused (429) until some run out. Raise maxKeys, or share a Redis store (createRedisRateLimitStore).',
  );
}

/** `429` with `Retry-After` in whole seconds, at least one. */
export function rateLimited(retryAfterMs: number): HttpError {
  const seconds = retryAfterSeconds(retryAfterMs);
  return new HttpError('rateLimited', `Too many requests. Try again in ${seconds} s.`, {
    headers: { [RETRY_AFTER_HEADER]: String(seconds) },
  });
}

/** The prompt limit's `429`: what the shopper can do about it, in words. */
export function tooManyPaymentRequests(retryAfterMs: number): HttpError {
  const seconds = retryAfterSeconds(retryAfterMs);
  const minutes = Math.ceil(seconds / 60);
  return new HttpError(
    'tooManyPaymentRequests',
    `Too many payment requests to this number: approve the one on your phone or wait ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    { param: PROMPT_LIMIT_PARAM, headers: { [RETRY_AFTER_HEADER]: String(seconds) } },
  );
}

function retryAfterSeconds(retryAfterMs: number): number {
  return Math.max(1, Math.ceil(retryAfterMs / 1000));
}

/** A store's decision, and the store that made it. */
interface Decided {
  decision: RateLimitDecision;
  store: RateLimitStore;
}

/**
 * The store's decision, and the store that made it, at once when the store
 * answers at once; while the store fails, this process's memory decides.
 */
function decide(
  config: LimitsConfig,
  ask: (store: RateLimitStore) => RateLimitDecision | Promise<RateLimitDecision>,
): Decided | Promise<Decided> {
  let taken: RateLimitDecision | PromiseLike<RateLimitDecision>;
  try {
    taken = ask(config.store);
  } catch (error) {
    return fallBack(config, ask, error);
  }
  // The memory store answers at once: no turn of the event loop for it.
  if (!isPromiseLike(taken)) return { decision: taken, store: config.store };
  return Promise.resolve(taken).then(
    (decision) => ({ decision, store: config.store }),
    (error: unknown) => fallBack(config, ask, error),
  );
}

/** The decision of this process's memory while the store fails, the merchant warned once. */
function fallBack(
  config: LimitsConfig,
  ask: (store: RateLimitStore) => RateLimitDecision | Promise<RateLimitDecision>,
  error: unknown,
): Decided {
  config.reporter.warnOnce(
    'rate_limit_store_failed',
    'The rate-limit store failed; limits are kept in this process until it answers again.',
    error,
  );
  return { decision: ask(config.fallbackStore) as RateLimitDecision, store: config.fallbackStore };
}

/** True for a promise or any thenable, as `await` sees them. */
function isPromiseLike<Value>(value: Value | PromiseLike<Value>): value is PromiseLike<Value> {
  return typeof (value as Partial<PromiseLike<Value>>).then === 'function';
}
