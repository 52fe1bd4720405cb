/**
 * The relay's options, checked once at startup into a frozen config that
 * every handler reads. A mistake a merchant can make in the options is a
 * TypeError here, with a message that says what to give, never at the first
 * checkout.
 */
import { isJsonObject } from '../http/read-json-body.js';
import type { HttpTransport } from '../http/transport.js';
import { type Clock, systemClock } from '../shared/clock.js';
import { type CorsPolicy, createCorsPolicy } from './cors.js';
import type { CheckoutRelayEventHandler } from './events/relay-events.js';
import { createRelayReporter } from './events/relay-reporter.js';
import {
  type FulfilmentOptions,
  type FulfilmentSettings,
  resolveFulfilmentSettings,
} from './fulfilment/watch-settings.js';
import type { WebhookSender } from './fulfilment/webhooks/webhook-dispatcher.js';
import type { HandlerConfig } from './handlers/handler-config.js';
import type { TrustProxy } from './limits/client-address/client-address.js';
import { type CheckoutRelayRateLimitOptions, resolveRelayLimits } from './limits/relay-limit-config.js';
import type { PriceCart } from './pricing/priced-cart.js';
import {
  createServiceClient,
  createServiceClientOn,
  type ServiceClient,
} from './service-client/service-client.js';
import { normalizeBaseUrl } from './service-client/service-client-config.js';
import { createAttemptDigests } from './tokens/attempt-digest.js';
import { createIdempotencyScope, createServiceKeyScope } from './tokens/idempotency-scope.js';
import { createLookupTokens, randomLookupSecret } from './tokens/lookup-token.js';
import { assertSecretKey } from './tokens/secret-key.js';

/** Shortest `lookupSecret` accepted: a short secret lets anyone holding one token guess it offline. */
export const LOOKUP_SECRET_MIN_LENGTH = 16;

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
  /** Limits per client address and per mobile-money number; `false` turns them all off. */
  rateLimit?: CheckoutRelayRateLimitOptions | false;
  /**
   * The proxies in front of the relay: a hop count (`1` behind
   * one nginx), or their addresses and ranges (`['10.0.0.0/8']`). The client
   * is then the rightmost `X-Forwarded-For` address none of them is. Unset:
   * the peer is the client and forwarding headers are ignored.
   */
  trustProxy?: TrustProxy;
  /** Origins (`https://shop.example`) whose pages may call the relay across origins. None by default. */
  allowedOrigins?: readonly string[];
  /** The merchant's hook: orders, refusals, upstream errors, warnings. */
  onEvent?: CheckoutRelayEventHandler;
  /**
   * The clock of the rate limits and the watcher: the time (epoch ms), and
   * the timers the watcher's passes are scheduled on. Default the system's.
   * A test gives one it moves by hand; with `watch: { ticks: false }` the
   * relay runs no pass but those `relay.fulfilment.tick()` runs (a cron job).
   */
  clock?: Clock;
}

/** Everything the relay reads, checked: what its handlers read, CORS for its routes, and the watcher's settings. */
export interface RelayConfig extends HandlerConfig {
  readonly cors: CorsPolicy;
  /** The journal and the watcher's timing; `undefined` without a journal. */
  readonly fulfilment: FulfilmentSettings | undefined;
  /** The watcher's service client: no retries of its own, its schedule is the retry. */
  readonly watcherClient: ServiceClient;
}

/** The system's clock, its timers unreferenced so that a forgotten `close()` never keeps a process alive. */
const RELAY_SYSTEM_CLOCK: Clock = {
  now: systemClock.now,
  setTimeout(callback, ms) {
    const timer = systemClock.setTimeout(callback, ms) as { unref?: () => void };
    timer.unref?.();
    return timer;
  },
  clearTimeout: systemClock.clearTimeout,
};

/** Service-client settings for a relay: a browser is waiting, so retries are few and waits short. */
const RELAY_SERVICE_CLIENT = { timeoutMs: 10_000, maxRetries: 2, maxRetryAfterMs: 5_000 };

/** Service-client settings for the watcher: nobody waits, and a failed call waits for the next pass. */
const WATCHER_SERVICE_CLIENT = { timeoutMs: 10_000, maxRetries: 0 };

/**
 * Checks `options` into a {@link RelayConfig}. `defaultTransport` is the
 * runtime's best way to the service when no `fetch` is given (undici's on Node),
 * and `webhookSender` how webhooks are sent (the Node entry's; without it they are refused).
 */
export function resolveRelayConfig(
  options: CheckoutRelayOptions,
  defaultTransport?: HttpTransport,
  webhookSender?: WebhookSender,
): RelayConfig {
  const owner = 'createCheckoutRelay';
  if (!isJsonObject(options)) throw new TypeError(`${owner}: give an options object.`);
  assertSecretKey(options.secretKey, owner);
  const baseUrl = normalizeBaseUrl(options.baseUrl, owner);
  assertPriceCart(options.priceCart, owner);
  assertLookupSecret(options.lookupSecret, owner);
  const clock = checkedClock(options, owner);
  const lookupSecret = options.lookupSecret ?? randomLookupSecret();
  const reporter = createRelayReporter(options.onEvent);
  if (options.lookupSecret === undefined) {
    reporter.warnOnce(
      'lookup_secret_generated',
      'No lookupSecret given: a random one was made for this process. Lookup tokens stop working after a restart and on other instances, and each instance keys its own payment-prompt limit per number; set lookupSecret.',
    );
  }
  const fulfilment = resolveFulfilmentSettings(options, clock, owner, webhookSender);
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
    ...resolveRelayLimits(options.rateLimit, options.trustProxy, lookupSecret, clock, owner),
    cors: createCorsPolicy(options.allowedOrigins ?? []),
    reporter,
    lookupTokens: createLookupTokens(lookupSecret),
    scopeIdempotencyKey: createIdempotencyScope(options.secretKey),
    serviceKeyOf: createServiceKeyScope(options.secretKey),
    attemptDigests: createAttemptDigests(options.secretKey),
  });
}

function assertPriceCart(priceCart: unknown, owner: string): void {
  if (typeof priceCart === 'function') return;
  throw new TypeError(
    `${owner}: priceCart is required: the server decides what is charged. Give priceCart(cart, request) returning the line items; prices from the browser are never used.`,
  );
}

/** The options the relay's `clock` replaced (0.x): given, they are refused by name. */
const REPLACED_BY_CLOCK = [
  ['rateLimit', 'now'],
  ['watch', 'now'],
  ['watch', 'timers'],
] as const;

/** The relay's one clock; the options it replaced are refused by name, so an upgrade cannot lose them quietly. */
function checkedClock(options: CheckoutRelayOptions, owner: string): Clock {
  for (const [group, name] of REPLACED_BY_CLOCK) {
    const holder: unknown = options[group];
    if (isJsonObject(holder) && holder[name] !== undefined) {
      const manualTicks =
        name === 'timers' ? ' To run the passes yourself, give watch: { ticks: false }.' : '';
      throw new TypeError(
        `${owner}: ${group}.${name} is replaced by clock: give clock: { now, setTimeout, clearTimeout }, one Clock for the rate limits and the watcher.${manualTicks}`,
      );
    }
  }
  const { clock } = options;
  if (clock === undefined) return RELAY_SYSTEM_CLOCK;
  const isClock =
    typeof clock === 'object' &&
    clock !== null &&
    ['now', 'setTimeout', 'clearTimeout'].every((name) => typeof clock[name as keyof Clock] === 'function');
  if (isClock) return clock;
  throw new TypeError(
    `${owner}: clock must be a Clock: { now(), setTimeout(callback, ms), clearTimeout(timer) }.`,
  );
}

function assertLookupSecret(lookupSecret: unknown, owner: string): void {
  if (lookupSecret === undefined) return;
  if (typeof lookupSecret === 'string' && lookupSecret.length >= LOOKUP_SECRET_MIN_LENGTH) return;
  throw new TypeError(
    `${owner}: lookupSecret must be a string of at least ${LOOKUP_SECRET_MIN_LENGTH} characters (a random one is best), the same on every instance.`,
  );
}
