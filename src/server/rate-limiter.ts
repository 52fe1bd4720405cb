/**
 * Token-bucket rate limits per client address (contract §3: `429` with
 * `Retry-After`; creates are limited by default). The bucket math is a pure
 * function; where buckets live is a {@link RateLimitStore}, so a merchant
 * running several instances can keep them in a shared store (Redis with a
 * small script doing {@link takeToken}).
 * The default store is in memory and bounded.
 */

/** A bucket of `capacity` tokens refilled at `refillPerMinute`; each request takes one. */
export interface TokenBucketRule {
  /** Requests allowed in a burst. */
  capacity: number;
  /** Tokens added per minute, continuously. */
  refillPerMinute: number;
}

/** A bucket as a store keeps it. */
export interface TokenBucketState {
  tokens: number;
  /** Epoch milliseconds of the last update. */
  updatedAt: number;
}

/** The answer to one request for a token. */
export interface RateLimitDecision {
  allowed: boolean;
  /** Whole tokens left after this request. */
  remaining: number;
  /** When refused: milliseconds until a token is available. 0 when allowed. */
  retryAfterMs: number;
}

/** Where buckets live. `take` must be atomic per key when instances share the store. */
export interface RateLimitStore {
  /** Takes one token from bucket `key` under `rule` at time `now` (epoch ms). */
  take(key: string, rule: TokenBucketRule, now: number): RateLimitDecision | Promise<RateLimitDecision>;
}

/** Refills `state` up to `now`, then takes one token if there is one. */
export function takeToken(
  state: TokenBucketState | undefined,
  rule: TokenBucketRule,
  now: number,
): { state: TokenBucketState; decision: RateLimitDecision } {
  const perMs = rule.refillPerMinute / 60_000;
  const elapsed = state ? Math.max(0, now - state.updatedAt) : 0;
  const tokens = state ? Math.min(rule.capacity, state.tokens + elapsed * perMs) : rule.capacity;
  if (tokens >= 1) {
    return {
      state: { tokens: tokens - 1, updatedAt: now },
      decision: { allowed: true, remaining: Math.floor(tokens - 1), retryAfterMs: 0 },
    };
  }
  return {
    state: { tokens, updatedAt: now },
    decision: { allowed: false, remaining: 0, retryAfterMs: Math.ceil((1 - tokens) / perMs) },
  };
}

/** Options of {@link createMemoryRateLimitStore}. */
export interface MemoryRateLimitStoreOptions {
  /** Buckets kept; past it the least recently used is dropped. Default 10 000. */
  maxKeys?: number;
}

/**
 * The in-memory store: one process only. Bounded: a flood of new addresses
 * evicts the least recently used buckets instead of growing without end (an
 * evicted bucket starts full again, the price of the bound).
 */
export function createMemoryRateLimitStore(options: MemoryRateLimitStoreOptions = {}): RateLimitStore & {
  /** Buckets held now. */
  readonly size: number;
} {
  const maxKeys = options.maxKeys ?? 10_000;
  const buckets = new Map<string, TokenBucketState>();
  return {
    get size() {
      return buckets.size;
    },
    take(key, rule, now) {
      const { state, decision } = takeToken(buckets.get(key), rule, now);
      // Re-inserting keeps the Map in least-recently-used order.
      buckets.delete(key);
      buckets.set(key, state);
      if (buckets.size > maxKeys) {
        const oldest = buckets.keys().next();
        if (!oldest.done) buckets.delete(oldest.value);
      }
      return decision;
    },
  };
}

/** Throws a TypeError unless `rule` is a usable bucket. */
export function assertTokenBucketRule(rule: TokenBucketRule, name: string): void {
  if (
    !(Number.isFinite(rule.capacity) && rule.capacity >= 1) ||
    !(Number.isFinite(rule.refillPerMinute) && rule.refillPerMinute > 0)
  ) {
    throw new TypeError(`${name} needs capacity >= 1 and refillPerMinute > 0.`);
  }
}
