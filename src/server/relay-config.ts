/**
 * The relay's options, checked once at startup into a frozen config that
 * every handler reads. A mistake a merchant can make in the options is a
 * TypeError here, with a message that says what to give, never at the first
 * checkout.
 */
import type { ConnectionInfo } from '../http/handler.js';
import { isJsonObject } from '../http/read-json-body.js';
import type { HttpTransport } from '../http/transport.js';
import { type CorsPolicy, createCorsPolicy } from './cors.js';
import {
  type FulfilmentOptions,
  type FulfilmentSettings,
  resolveFulfilmentSettings,
} from './fulfilment/watch-settings.js';
import { createIdempotencyScope, type IdempotencyScope } from './idempotency-scope.js';
import { createLookupTokens, type LookupTokens, randomLookupSecret } from './lookup-token.js';
import type { PricedLineItem } from './priced-line-items.js';
import {
  assertTokenBucketRule,
  createMemoryRateLimitStore,
  type RateLimitStore,
  type TokenBucketRule,
} from './rate-limiter.js';
import type { CheckoutRelayEventHandler, RelayRoute } from './relay-events.js';
import { createRelayReporter, type RelayReporter } from './relay-reporter.js';
import { assertSecretKey } from './secret-key.js';
import { createServiceClient, createServiceClientOn, type ServiceClient } from './service-client.js';
import { normalizeBaseUrl } from './service-client-config.js';

/** Largest body the relay reads (contract §3: `413` above 16 KiB). */
export const RELAY_MAX_BODY_BYTES = 16 * 1024;

/** Shortest `lookupSecret` accepted: a short secret lets anyone holding one token guess it offline. */
export const LOOKUP_SECRET_MIN_LENGTH = 16;

/** Default limit of creates per client address: a burst of 10, then one every 6 s. */
export const DEFAULT_CREATE_RATE_LIMIT: TokenBucketRule = { capacity: 10, refillPerMinute: 10 };

/** Default limit of lookups per client address: polls every 2–5 s fit many times over. */
export const DEFAULT_LOOKUP_RATE_LIMIT: TokenBucketRule = { capacity: 120, refillPerMinute: 120 };

/** Prices the cart on the server: whatever the browser said about prices is ignored. */
export type PriceCart = (cart: unknown, request: Request) => PricedLineItem[] | Promise<PricedLineItem[]>;

/** Rate limits of the relay, per client address. */
export interface CheckoutRelayRateLimitOptions {
  /** Bucket of creates per client; `false` turns it off. Default {@link DEFAULT_CREATE_RATE_LIMIT}. */
  create?: TokenBucketRule | false;
  /** Bucket of lookups per client; `false` turns it off. Default {@link DEFAULT_LOOKUP_RATE_LIMIT}. */
  lookup?: TokenBucketRule | false;
  /** Where buckets live; default in memory (one process). Share one store across instances. */
  store?: RateLimitStore;
  /**
   * The client's address. Default: the connection's peer as the runtime gives
   * it (the Node listener does). Behind a proxy or on a serverless platform,
   * read the platform's trusted header here (`cf-connecting-ip`…).
   */
  clientAddress?: (request: Request, connection?: ConnectionInfo) => string | undefined;
  /** The clock, epoch ms; injectable for tests. Default `Date.now`. */
  now?: () => number;
}

/** Options of `createCheckoutRelay`; the fulfilment ones (`journal`, `onPaid`…) are in {@link FulfilmentOptions}. */
export interface CheckoutRelayOptions extends FulfilmentOptions {
  /** The service's secret key (`sk_test_…`, `sk_live_…`); it never leaves the server. */
  secretKey: string;
  /** The service's base URL (or the sandbox's). */
  baseUrl: string;
  /** Turns the browser's `cart` into the line items charged. Throw a CartError to refuse a cart. */
  priceCart: PriceCart;
  /**
   * Secret the lookup tokens are signed with (at least 16 characters). Give
   * the same one to every instance and keep it across restarts; when absent a
   * random one is made per process and a warning is sent to `onEvent`.
   */
  lookupSecret?: string;
  /**
   * The fetch the service client uses. Default on Node: undici's `request`
   * over a keep-alive pool (no redirects; `HTTPS_PROXY`/`HTTP_PROXY` honoured);
   * elsewhere the global fetch.
   */
  fetch?: typeof fetch;
  /** Limits per client address; `false` turns them off. */
  rateLimit?: CheckoutRelayRateLimitOptions | false;
  /** Origins (`https://shop.example`) whose pages may call the relay across origins. None by default. */
  allowedOrigins?: readonly string[];
  /** The merchant's hook: orders, refusals, upstream errors, warnings. */
  onEvent?: CheckoutRelayEventHandler;
}

/** Everything the relay's handlers read, checked. */
export interface RelayConfig {
  readonly client: ServiceClient;
  readonly priceCart: PriceCart;
  readonly rules: Readonly<Record<RelayRoute, TokenBucketRule | undefined>>;
  readonly store: RateLimitStore;
  readonly now: () => number;
  readonly clientAddressOf: (request: Request, connection?: ConnectionInfo) => string | undefined;
  readonly cors: CorsPolicy;
  readonly reporter: RelayReporter;
  readonly lookupTokens: LookupTokens;
  readonly scopeIdempotencyKey: IdempotencyScope;
  /** The journal and the watcher's timing; `undefined` without a journal. */
  readonly fulfilment: FulfilmentSettings | undefined;
  /** The watcher's service client: no retries of its own, its schedule is the retry. */
  readonly watcherClient: ServiceClient;
}

/** Service-client settings for a relay: a browser is waiting, so retries are few and waits short. */
const RELAY_SERVICE_CLIENT = { timeoutMs: 10_000, maxRetries: 2, maxRetryAfterMs: 5_000 };

/** Service-client settings for the watcher: nobody waits, and a failed call waits for the next pass. */
const WATCHER_SERVICE_CLIENT = { timeoutMs: 10_000, maxRetries: 0 };

/**
 * Checks `options` into a {@link RelayConfig}. `defaultTransport` is the
 * runtime's best way to the service when no `fetch` is given (undici's on Node).
 */
export function resolveRelayConfig(
  options: CheckoutRelayOptions,
  defaultTransport?: HttpTransport,
): RelayConfig {
  const owner = 'createCheckoutRelay';
  if (!isJsonObject(options)) throw new TypeError(`${owner}: give an options object.`);
  assertSecretKey(options.secretKey, owner);
  const baseUrl = normalizeBaseUrl(options.baseUrl, owner);
  assertPriceCart(options.priceCart, owner);
  assertLookupSecret(options.lookupSecret, owner);
  const rateLimit = options.rateLimit === false ? undefined : (options.rateLimit ?? {});
  const rules = {
    create: ruleOrDefault(rateLimit, 'create', DEFAULT_CREATE_RATE_LIMIT),
    lookup: ruleOrDefault(rateLimit, 'lookup', DEFAULT_LOOKUP_RATE_LIMIT),
  };
  if (rules.create) assertTokenBucketRule(rules.create, `${owner}: rateLimit.create`);
  if (rules.lookup) assertTokenBucketRule(rules.lookup, `${owner}: rateLimit.lookup`);
  const reporter = createRelayReporter(options.onEvent);
  if (options.lookupSecret === undefined) {
    reporter.warnOnce(
      'lookup_secret_generated',
      'No lookupSecret given: a random one was made for this process. Lookup tokens stop working after a restart and on other instances; set lookupSecret.',
    );
  }
  const fulfilment = resolveFulfilmentSettings(options, owner);
  const clientFor = (settings: object) => {
    const clientOptions = { baseUrl, secretKey: options.secretKey, ...settings };
    return options.fetch === undefined && defaultTransport
      ? createServiceClientOn(clientOptions, defaultTransport)
      : createServiceClient({ ...clientOptions, ...(options.fetch ? { fetch: options.fetch } : {}) });
  };
  return Object.freeze({
    client: clientFor(RELAY_SERVICE_CLIENT),
    fulfilment,
    watcherClient: clientFor(WATCHER_SERVICE_CLIENT),
    priceCart: options.priceCart,
    rules: Object.freeze(rules),
    store: rateLimit?.store ?? createMemoryRateLimitStore(),
    now: rateLimit?.now ?? Date.now,
    clientAddressOf: rateLimit?.clientAddress ?? ((_request, connection) => connection?.clientAddress),
    cors: createCorsPolicy(options.allowedOrigins ?? []),
    reporter,
    lookupTokens: createLookupTokens(options.lookupSecret ?? randomLookupSecret()),
    scopeIdempotencyKey: createIdempotencyScope(options.secretKey),
  });
}

function assertPriceCart(priceCart: unknown, owner: string): void {
  if (typeof priceCart === 'function') return;
  throw new TypeError(
    `${owner}: priceCart is required: the server decides what is charged. Give priceCart(cart, request) returning the line items; prices from the browser are never used.`,
  );
}

function assertLookupSecret(lookupSecret: unknown, owner: string): void {
  if (lookupSecret === undefined) return;
  if (typeof lookupSecret === 'string' && lookupSecret.length >= LOOKUP_SECRET_MIN_LENGTH) return;
  throw new TypeError(
    `${owner}: lookupSecret must be a string of at least ${LOOKUP_SECRET_MIN_LENGTH} characters (a random one is best), the same on every instance.`,
  );
}

/** The bucket of one route: undefined when limits are off, the default when not given. */
function ruleOrDefault(
  rateLimit: CheckoutRelayRateLimitOptions | undefined,
  route: RelayRoute,
  fallback: TokenBucketRule,
): TokenBucketRule | undefined {
  if (!rateLimit) return undefined;
  const rule = rateLimit[route];
  return rule === false ? undefined : (rule ?? fallback);
}
