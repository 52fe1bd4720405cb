/**
 * The merchant API: what a shop's backend in any language calls, server to
 * server, under `/v1/`: create a checkout for the page to pay, and read
 * checkouts and orders to verify a payment before shipping. Every request
 * carries `Authorization: Bearer <key>`; the key is checked before anything
 * else is read, the same way on every route, and a client address that
 * keeps sending wrong keys is refused for a while. No CORS: a browser has no
 * business here, and a page that tried would have to hold the key.
 */
import { answerFor } from '../../http/answer-errors.js';
import type { ConnectionInfo } from '../../http/handler.js';
import { HttpError } from '../../http/http-error.js';
import { pathnameOf } from '../../http/pathname.js';
import { type Clock, systemClock } from '../../shared/clock.js';
import type { ServerCheckouts } from '../checkouts/server-checkout.js';
import type { CheckoutOrders } from '../fulfilment/order-records.js';
import {
  type ClientAddressOption,
  createClientKeyOf,
  type TrustProxy,
} from '../limits/client-address/client-address.js';
import { createMemoryRateLimitStore } from '../limits/memory-rate-limit-store.js';
import { assertTokenBucketRule, type RateLimitStore, type TokenBucketRule } from '../limits/rate-limiter.js';
import {
  API_KEY_MESSAGES,
  type ApiKeyCheck,
  assertApiKey,
  bearerKeyOf,
  createApiKeyCheck,
  invalidApiKey,
} from './api-key.js';
import { answerRoute } from './api-routes.js';
import {
  createFailedAuthLimit,
  DEFAULT_FAILED_AUTH_LIMIT,
  type FailedAuthLimit,
} from './failed-auth-limit.js';

/** Options of {@link createMerchantApi}. */
export interface MerchantApiOptions {
  /** The relay's server-created checkouts (`relay.checkouts`). */
  checkouts: ServerCheckouts;
  /** The relay's journal orders (`relay.orders`). */
  orders: CheckoutOrders;
  /** The shop backend's key (`PAY_CHECKOUT_API_KEY`, at least 32 characters); `undefined`: every request `401`. */
  apiKey: string | undefined;
  /** The shop origins a checkout may be bound to (`origin`): the relay's `allowedOrigins`. */
  allowedOrigins?: readonly string[];
  /** Wrong keys allowed per client address, a bucket; `false` turns the limit off. Default 10, then one every 6 s. */
  failedAuthLimit?: TokenBucketRule | false;
  /** Where the failures are counted; default in memory. A fleet shares the relay's Redis store. */
  rateLimitStore?: RateLimitStore;
  /** The proxies in front of the server, as the relay's `trustProxy`. */
  trustProxy?: TrustProxy;
  /** The peer's address, as the relay's `rateLimit.clientAddress`; default the connection's. */
  clientAddress?: ClientAddressOption;
  /** Time for the limit; default the system's. */
  clock?: Clock;
  /** Told of a throw answered with a bare `500` (the answer says nothing of it). */
  onError?: (error: unknown, request: Request) => void;
}

/** The merchant API as a web handler, for requests under `/v1/`. */
export type MerchantApi = (request: Request, connection?: ConnectionInfo) => Promise<Response>;

/** The path prefix the merchant API answers under. */
export const MERCHANT_API_PREFIX = '/v1/';

/** The merchant API on `options.checkouts` and `options.orders`, guarded by `options.apiKey`. */
export function createMerchantApi(options: MerchantApiOptions): MerchantApi {
  assertApiKey(options.apiKey);
  const rule =
    options.failedAuthLimit === false ? undefined : (options.failedAuthLimit ?? DEFAULT_FAILED_AUTH_LIMIT);
  if (rule) assertTokenBucketRule(rule, 'createMerchantApi: failedAuthLimit');
  const limit = createFailedAuthLimit({
    rule,
    store: options.rateLimitStore ?? createMemoryRateLimitStore(),
    clock: options.clock ?? systemClock,
    clientKeyOf: createClientKeyOf(
      options.trustProxy,
      options.clientAddress,
      'createMerchantApi: trustProxy',
    ),
  });
  const check = options.apiKey === undefined ? undefined : createApiKeyCheck(options.apiKey);
  const context = {
    checkouts: options.checkouts,
    orders: options.orders,
    allowedOrigins: [...(options.allowedOrigins ?? [])],
  };
  return async (request, connection) => {
    try {
      const path = pathnameOf(request.url).replace(/\/+$/, '');
      if (!`${path}/`.startsWith(MERCHANT_API_PREFIX))
        throw new HttpError('resourceNotFound', 'Not a /v1/ route.');
      await authenticate(request, connection, check, limit);
      return await answerRoute(context, request, path.slice(MERCHANT_API_PREFIX.length));
    } catch (error) {
      return answerFor(error, request, { onUnexpected: options.onError });
    }
  };
}

/** Returns when the request carries the API key; throws its `401`, or `429` for a client refused for its failures. */
async function authenticate(
  request: Request,
  connection: ConnectionInfo | undefined,
  check: ApiKeyCheck | undefined,
  limit: FailedAuthLimit,
): Promise<void> {
  if (!check) throw invalidApiKey(API_KEY_MESSAGES.unset);
  const refused = limit.refusal(request, connection);
  if (refused) throw refused;
  const presented = bearerKeyOf(request);
  // No key at all is no guess: nothing to count.
  if (presented === undefined) throw invalidApiKey(API_KEY_MESSAGES.missing);
  if (await check(presented)) return;
  throw (await limit.failed(request, connection)) ?? invalidApiKey(API_KEY_MESSAGES.wrong);
}
