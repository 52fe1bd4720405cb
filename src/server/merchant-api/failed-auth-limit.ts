/**
 * Failed key checks, limited per client address. Each wrong or missing key
 * takes a token from the address's bucket in the rate-limit store (the
 * relay's limits, so a fleet may share Redis); once the bucket is empty the
 * address is refused (`429`) before its key is even compared, until the
 * bucket would give a token again. Refusing the right key too is the point:
 * otherwise a guesser would still tell a hit (`200`) from a miss (`429`).
 * A good key spends nothing, so a shop's backend is never slowed by it.
 */
import type { ConnectionInfo } from '../../http/handler.js';
import type { HttpError } from '../../http/http-error.js';
import type { Clock } from '../../shared/clock.js';
import type { ClientKeyOf } from '../limits/client-address/client-address.js';
import { createMemoryRateLimitStore } from '../limits/memory-rate-limit-store.js';
import type { RateLimitStore, TokenBucketRule } from '../limits/rate-limiter.js';
import { rateLimited } from '../limits/relay-limits.js';

/** Default bucket of failed key checks per client address: 10 at once, then one every 6 s. */
export const DEFAULT_FAILED_AUTH_LIMIT: TokenBucketRule = { capacity: 10, refillPerMinute: 10 };

/** Most addresses remembered as refused at once; past it the ones whose refusal ran out are dropped first. */
const MAX_REFUSED_ADDRESSES = 10_000;

/** What the limit needs: its rule (or none), its store, the clock and how a request's client is named. */
export interface FailedAuthLimitSettings {
  rule: TokenBucketRule | undefined;
  store: RateLimitStore;
  clock: Clock;
  clientKeyOf: ClientKeyOf;
}

/** The limit of one merchant API. */
export interface FailedAuthLimit {
  /** The `429` for this request's client while it is refused, else `undefined`. */
  refusal(request: Request, connection: ConnectionInfo | undefined): HttpError | undefined;
  /** Counts a failed check; the `429` when that emptied the bucket, else `undefined`. */
  failed(request: Request, connection: ConnectionInfo | undefined): Promise<HttpError | undefined>;
}

/** The limit under `settings`; without a rule, or for a client with no known address, nothing is limited. */
export function createFailedAuthLimit(settings: FailedAuthLimitSettings): FailedAuthLimit {
  const { rule, store, clock, clientKeyOf } = settings;
  // Until when each refused address stays refused (epoch ms of the clock).
  const refusedUntil = new Map<string, number>();
  // While a shared store fails, this process's memory counts: a store outage must not lift the limit.
  const fallbackStore = createMemoryRateLimitStore();

  async function takeOrFallBack(key: string, bucket: TokenBucketRule, now: number) {
    try {
      return await store.take(key, bucket, now);
    } catch {
      return fallbackStore.take(key, bucket, now);
    }
  }

  function forget(now: number): void {
    for (const [client, until] of refusedUntil) if (until <= now) refusedUntil.delete(client);
    // Still full of live refusals: the oldest go; the store still counts their failures.
    for (const client of refusedUntil.keys()) {
      if (refusedUntil.size < MAX_REFUSED_ADDRESSES) break;
      refusedUntil.delete(client);
    }
  }

  return {
    refusal(request, connection) {
      if (!rule || refusedUntil.size === 0) return undefined;
      const client = clientKeyOf(request, connection);
      const until = client === undefined ? undefined : refusedUntil.get(client);
      const now = clock.now();
      if (until === undefined || until <= now) return undefined;
      return rateLimited(until - now);
    },
    async failed(request, connection) {
      const client = rule && clientKeyOf(request, connection);
      if (!rule || client === undefined) return undefined;
      const now = clock.now();
      const decision = await takeOrFallBack(`api-key:${client}`, rule, now);
      if (decision.allowed) return undefined;
      if (refusedUntil.size >= MAX_REFUSED_ADDRESSES) forget(now);
      refusedUntil.set(client, now + decision.retryAfterMs);
      return rateLimited(decision.retryAfterMs);
    },
  };
}
