/**
 * Rate limits: token buckets per client address, and a
 * sliding window of payment prompts per mobile-money number. The math is
 * pure functions; where limits live is a {@link RateLimitStore}, so a
 * merchant running several instances keeps them in a shared store (Redis,
 * redis-rate-limit-store.ts, does the same math in a script).
 * The default store is in memory and bounded (memory-rate-limit-store.ts).
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
  /** `takeSlot` only: true when this call counted the member, false when an earlier call had. */
  newSlot?: boolean;
  /**
   * Refused because the store holds as many live limits of this kind as it
   * may (the in-memory store's bound), not by this key's own limit.
   */
  storeFull?: boolean;
}

/** Where limits live. Each call must be atomic per key when instances share the store. */
export interface RateLimitStore {
  /** Takes one token from bucket `key` under `rule` at time `now` (epoch ms). */
  take(key: string, rule: TokenBucketRule, now: number): RateLimitDecision | Promise<RateLimitDecision>;
  /**
   * Counts `member` in the window `key` under `rule` at `now`; a member
   * already counted in the window is allowed again without a new slot.
   */
  takeSlot(
    key: string,
    member: string,
    rule: SlidingWindowRule,
    now: number,
  ): RateLimitDecision | Promise<RateLimitDecision>;
  /**
   * Gives back the slot `member` holds in the window `key`: the create it
   * counted sent no prompt. Optional: a store without it keeps the slot,
   * which errs on the side of the phone's owner.
   */
  releaseSlot?(key: string, member: string): void | Promise<void>;
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

/** At most `limit` distinct members in any `windowMinutes`: the payment-prompt limit per number. */
export interface SlidingWindowRule {
  /** Members allowed in one window. */
  limit: number;
  /** The window, in minutes. */
  windowMinutes: number;
}

/** A window as a store keeps it: each member counted, with when, oldest first. */
export interface SlidingWindowState {
  slots: [member: string, at: number][];
}

/**
 * Forgets slots older than the window, then allows `member` if it already has
 * a slot (a retry of the same attempt sends no new prompt) or a slot is free.
 */
export function takeWindowSlot(
  state: SlidingWindowState | undefined,
  member: string,
  rule: SlidingWindowRule,
  now: number,
): { state: SlidingWindowState; decision: RateLimitDecision } {
  const windowMs = rule.windowMinutes * 60_000;
  const slots = (state?.slots ?? []).filter(([, at]) => at > now - windowMs);
  const allowed = (remaining: number, newSlot: boolean) => ({
    allowed: true,
    remaining,
    retryAfterMs: 0,
    newSlot,
  });
  if (slots.some(([counted]) => counted === member)) {
    return { state: { slots }, decision: allowed(Math.max(0, rule.limit - slots.length), false) };
  }
  if (slots.length < rule.limit) {
    slots.push([member, now]);
    return { state: { slots }, decision: allowed(rule.limit - slots.length, true) };
  }
  const oldest = slots[0]?.[1] ?? now;
  return {
    state: { slots },
    decision: { allowed: false, remaining: 0, retryAfterMs: Math.max(1, oldest + windowMs - now) },
  };
}

/** Throws a TypeError unless `rule` is a usable window. */
export function assertSlidingWindowRule(rule: SlidingWindowRule, name: string): void {
  if (
    !(Number.isInteger(rule.limit) && rule.limit >= 1) ||
    !(Number.isFinite(rule.windowMinutes) && rule.windowMinutes > 0)
  ) {
    throw new TypeError(`${name} needs a whole limit >= 1 and windowMinutes > 0.`);
  }
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
