/**
 * The relay's limits, checked once at startup: per client
 * address for creates and lookups, per mobile-money number for payment
 * prompts, kept in the store the merchant chose.
 */

import type { Clock } from '../../shared/clock.js';
import type { RelayRoute } from '../events/relay-events.js';
import { base64UrlEncode } from '../tokens/base64url.js';
import { createHmacSha256 } from '../tokens/hmac.js';
import {
  type ClientAddressOption,
  type ClientKeyOf,
  createClientKeyOf,
  type TrustProxy,
} from './client-address/client-address.js';
import { createMemoryRateLimitStore } from './memory-rate-limit-store.js';
import {
  assertSlidingWindowRule,
  assertTokenBucketRule,
  type RateLimitStore,
  type SlidingWindowRule,
  type TokenBucketRule,
} from './rate-limiter.js';

/** Default limit of creates per client address: a burst of 10, then one every 6 s. */
export const DEFAULT_CREATE_RATE_LIMIT: TokenBucketRule = { capacity: 10, refillPerMinute: 10 };

/** Default limit of lookups per client address: polls every 2–5 s fit many times over. */
export const DEFAULT_LOOKUP_RATE_LIMIT: TokenBucketRule = { capacity: 120, refillPerMinute: 120 };

/** Default limit of payment prompts to one mobile-money number, whoever asks: 3 in 10 minutes. */
export const DEFAULT_PROMPT_LIMIT: SlidingWindowRule = { limit: 3, windowMinutes: 10 };

/** Rate limits of the relay. */
export interface CheckoutRelayRateLimitOptions {
  /** Bucket of creates per client; `false` turns it off. Default {@link DEFAULT_CREATE_RATE_LIMIT}. */
  create?: TokenBucketRule | false;
  /** Bucket of lookups per client; `false` turns it off. Default {@link DEFAULT_LOOKUP_RATE_LIMIT}. */
  lookup?: TokenBucketRule | false;
  /** Bucket of price requests per client, limited like lookups; `false` turns it off. Default {@link DEFAULT_LOOKUP_RATE_LIMIT}. */
  price?: TokenBucketRule | false;
  /**
   * Payment prompts to one mobile-money number, from every client together;
   * `false` turns it off. Default {@link DEFAULT_PROMPT_LIMIT}. A retry of the
   * same attempt (same `Idempotency-Key`) sends no new prompt and is not counted.
   */
  promptsPerNumber?: SlidingWindowRule | false;
  /**
   * Where limits live; default in memory (one process). Give every instance
   * one shared store (`createRedisRateLimitStore`) so limits hold across the fleet.
   */
  store?: RateLimitStore;
  /**
   * The address of the peer that sent the request. Default: the connection's
   * peer as the runtime gives it (the Node listener does). On a platform that
   * names the client itself, read it here (`request.headers.get('cf-connecting-ip')`
   * on Cloudflare): that header is the platform's, not the client's.
   */
  clientAddress?: ClientAddressOption;
}

/** The routes with a limit of their own. */
export type LimitedRoute = Exclude<RelayRoute, 'checkout'>;

/** What the relay's handlers read about limits. */
export interface RelayLimits {
  /** Per route; a checkout read takes the lookup limit's tokens. */
  readonly rules: Readonly<Record<LimitedRoute, TokenBucketRule | undefined>>;
  readonly promptRule: SlidingWindowRule | undefined;
  readonly store: RateLimitStore;
  /** Where limits go while a shared store is failing: this process's memory. */
  readonly fallbackStore: RateLimitStore;
  /** The relay's clock: windows and buckets move with `clock.now()` (a Redis store keeps its own). */
  readonly clock: Clock;
  readonly clientKeyOf: ClientKeyOf;
  /** The key of a number's prompt window: an HMAC, so no store ever holds a phone number. */
  readonly promptKeyOf: (internationalNumber: string) => Promise<string>;
}

/** Checks the limit options into {@link RelayLimits}, on the relay's `clock`; `secret` keys the number HMAC. */
export function resolveRelayLimits(
  rateLimit: CheckoutRelayRateLimitOptions | false | undefined,
  trustProxy: TrustProxy | undefined,
  secret: string,
  clock: Clock,
  owner: string,
): RelayLimits {
  const options = rateLimit === false ? undefined : (rateLimit ?? {});
  const rules = {
    create: ruleOrDefault(options?.create, options, DEFAULT_CREATE_RATE_LIMIT),
    lookup: ruleOrDefault(options?.lookup, options, DEFAULT_LOOKUP_RATE_LIMIT),
    price: ruleOrDefault(options?.price, options, DEFAULT_LOOKUP_RATE_LIMIT),
  };
  if (rules.create) assertTokenBucketRule(rules.create, `${owner}: rateLimit.create`);
  if (rules.lookup) assertTokenBucketRule(rules.lookup, `${owner}: rateLimit.lookup`);
  if (rules.price) assertTokenBucketRule(rules.price, `${owner}: rateLimit.price`);
  const promptRule = ruleOrDefault(options?.promptsPerNumber, options, DEFAULT_PROMPT_LIMIT);
  if (promptRule) assertSlidingWindowRule(promptRule, `${owner}: rateLimit.promptsPerNumber`);
  // A key of its own, derived from the relay secret: a number's HMAC can never be a lookup token.
  const numberKey = createHmacSha256(secret)('pay-checkout prompt limit key').then(createHmacSha256);
  return Object.freeze({
    rules: Object.freeze(rules),
    promptRule,
    store: options?.store ?? createMemoryRateLimitStore(),
    fallbackStore: createMemoryRateLimitStore(),
    clock,
    clientKeyOf: createClientKeyOf(trustProxy, options?.clientAddress, `${owner}: trustProxy`),
    promptKeyOf: async (number: string) => base64UrlEncode(await (await numberKey)(number)),
  });
}

/** A rule: undefined when limits are off or it is `false`, the default when not given. */
function ruleOrDefault<Rule>(
  rule: Rule | false | undefined,
  options: CheckoutRelayRateLimitOptions | undefined,
  fallback: Rule,
): Rule | undefined {
  if (!options || rule === false) return undefined;
  return rule ?? fallback;
}
