/**
 * The merchant relay (contract §1, §3): the part a merchant mounts on
 * their own server between `<pay-checkout>` and the payments service. It holds
 * the secret key, prices the cart itself, scopes idempotency keys, signs and
 * checks lookup tokens, limits abuse, and answers the browser with status
 * fields only. Web-standard handlers, so it runs on Node and edge runtimes.
 */
import { IDEMPOTENCY_KEY_HEADER, RETRY_AFTER_HEADER } from '../shared/service-contract.js';
import {
  type CheckoutIntent,
  type CreateAnswer,
  checkoutIntentSchema,
  issueParam,
  isValidIdempotencyKey,
  type LookupAnswer,
  lookupRequestSchema,
} from '../shared/wire.js';
import { cartErrorMessage, cartErrorParam, isCartError } from './cart-error.js';
import { createCorsPolicy } from './cors.js';
import {
  errorResponse,
  headerOf,
  isJsonObject,
  jsonResponse,
  pathnameOf,
  RequestBodyError,
  readJsonBody,
} from './http.js';
import { createIdempotencyScope } from './idempotency-scope.js';
import { isNodeRuntime } from './is-node-runtime.js';
import { createLookupTokens, randomLookupSecret } from './lookup-token.js';
import {
  type NodeListener,
  type NodeRequestContext,
  toNodeListener,
  type WebHandler,
} from './node-adapter.js';
import { createNodeFetch } from './node-fetch.js';
import { checkPricedLineItems, type PricedLineItem } from './priced-line-items.js';
import {
  assertTokenBucketRule,
  createMemoryRateLimitStore,
  type RateLimitStore,
  type TokenBucketRule,
} from './rate-limiter.js';
import type {
  CheckoutRelayEvent,
  CheckoutRelayEventHandler,
  RelayRoute,
  RelayWarningCode,
} from './relay-events.js';
import { assertSecretKey } from './secret-key.js';
import { createServiceClient, normalizeBaseUrl } from './service-client.js';
import {
  ServiceError,
  ServiceIdempotencyError,
  ServiceInvalidRequestError,
  ServiceNotFoundError,
  ServiceRateLimitError,
} from './service-errors.js';

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
   * The client's address. Default: the Node adapter's TCP peer. Behind a proxy
   * or on a serverless platform, read the platform's trusted header here
   * (`x-forwarded-for` set by your own proxy, `cf-connecting-ip`…).
   */
  clientAddress?: (request: Request, context?: NodeRequestContext) => string | undefined;
  /** The clock, epoch ms; injectable for tests. Default `Date.now`. */
  now?: () => number;
}

/** Options of {@link createCheckoutRelay}. */
export interface CheckoutRelayOptions {
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
   * The fetch the service client uses. Default on Node: `createNodeFetch()`,
   * a keep-alive `node:http(s)` transport at about a third of the CPU per
   * call of Node 20's global fetch; on every other runtime, the global fetch.
   * That transport follows no redirects and ignores undici's global
   * dispatcher (proxies) and a stubbed `globalThis.fetch`: give
   * `fetch: globalThis.fetch` (or your own) to keep those.
   */
  fetch?: typeof fetch;
  /** Limits per client address; `false` turns them off. */
  rateLimit?: CheckoutRelayRateLimitOptions | false;
  /** Origins (`https://shop.example`) whose pages may call the relay across origins. None by default. */
  allowedOrigins?: readonly string[];
  /** The merchant's hook: orders, refusals, upstream errors, warnings. */
  onEvent?: CheckoutRelayEventHandler;
}

/** The handlers {@link createCheckoutRelay} returns. */
export interface CheckoutRelay {
  /** `POST` create-url: validates, prices, creates the order, answers status fields and a lookup token. */
  create: WebHandler;
  /** `POST` lookup-url: checks the lookup token, answers status fields only. */
  lookup: WebHandler;
  /** Both, routed by path: `…/orders` is create, `…/lookup` is lookup; `OPTIONS` answers preflights. */
  handle: WebHandler;
  /** `handle` as a `node:http` listener (Express and Fastify accept it too). */
  node: NodeListener;
}

/** Service-client settings for a relay: a browser is waiting, so retries are few and waits short. */
const RELAY_SERVICE_CLIENT = { timeoutMs: 10_000, maxRetries: 2, maxRetryAfterMs: 5_000 };

const GENERIC_UPSTREAM_MESSAGE = 'The payment service is unavailable. Try again in a moment.';
const GENERIC_INTERNAL_MESSAGE = 'The checkout failed on the server. Try again in a moment.';

/**
 * Creates the relay. Throws a TypeError with a clear message, at startup, for
 * a missing, publishable or malformed key, a missing `priceCart` or `baseUrl`,
 * a short `lookupSecret`, or a bad `allowedOrigins` entry or rate rule.
 */
export function createCheckoutRelay(options: CheckoutRelayOptions): CheckoutRelay {
  const owner = 'createCheckoutRelay';
  if (!isJsonObject(options)) throw new TypeError(`${owner}: give an options object.`);
  assertSecretKey(options.secretKey, owner);
  const baseUrl = normalizeBaseUrl(options.baseUrl, owner);
  if (typeof options.priceCart !== 'function') {
    throw new TypeError(
      `${owner}: priceCart is required: the server decides what is charged. Give priceCart(cart, request) returning the line items; prices from the browser are never used.`,
    );
  }
  if (
    options.lookupSecret !== undefined &&
    (typeof options.lookupSecret !== 'string' || options.lookupSecret.length < LOOKUP_SECRET_MIN_LENGTH)
  ) {
    throw new TypeError(
      `${owner}: lookupSecret must be a string of at least ${LOOKUP_SECRET_MIN_LENGTH} characters (a random one is best), the same on every instance.`,
    );
  }
  const priceCart = options.priceCart;
  const rateLimit = options.rateLimit === false ? undefined : (options.rateLimit ?? {});
  // `rateLimit: false` turns both limits off; `create: false` or `lookup: false` one of them.
  const createRule = ruleOrDefault(rateLimit, 'create', DEFAULT_CREATE_RATE_LIMIT);
  const lookupRule = ruleOrDefault(rateLimit, 'lookup', DEFAULT_LOOKUP_RATE_LIMIT);
  if (createRule) assertTokenBucketRule(createRule, `${owner}: rateLimit.create`);
  if (lookupRule) assertTokenBucketRule(lookupRule, `${owner}: rateLimit.lookup`);
  const store = rateLimit?.store ?? createMemoryRateLimitStore();
  const now = rateLimit?.now ?? Date.now;
  const clientAddressOf =
    rateLimit?.clientAddress ?? ((_request: Request, context?: NodeRequestContext) => context?.clientAddress);
  const cors = createCorsPolicy(options.allowedOrigins ?? []);
  const onEvent = options.onEvent ?? warnOnConsole;
  const warned = new Set<RelayWarningCode>();

  // Off Node, no fetch here means the service client takes the global one.
  const serviceFetch = options.fetch ?? defaultServiceFetch();
  const client = createServiceClient({
    baseUrl,
    secretKey: options.secretKey,
    ...(serviceFetch ? { fetch: serviceFetch } : {}),
    ...RELAY_SERVICE_CLIENT,
  });
  const scopeIdempotencyKey = createIdempotencyScope(options.secretKey);
  const lookupTokens = createLookupTokens(options.lookupSecret ?? randomLookupSecret());
  if (options.lookupSecret === undefined) {
    warnOnce(
      'lookup_secret_generated',
      'No lookupSecret given: a random one was made for this process. Lookup tokens stop working after a restart and on other instances; set lookupSecret.',
    );
  }

  function emit(event: CheckoutRelayEvent): void {
    try {
      const result = onEvent(event);
      if (result && typeof result.catch === 'function') result.catch(() => undefined);
    } catch {
      // The merchant's logging must never break a checkout.
    }
  }

  function warnOnce(code: RelayWarningCode, message: string, error?: unknown): void {
    if (warned.has(code)) return;
    warned.add(code);
    emit({ type: 'warning', code, message, ...(error === undefined ? {} : { error }) });
  }

  function reject(
    route: RelayRoute | 'unknown',
    response: Response,
    details: { code: string; message: string; param?: string },
  ): Response {
    emit({ type: 'request_rejected', route, status: response.status, ...details });
    return response;
  }

  function invalid(route: RelayRoute, message: string, param?: string): Response {
    const response = errorResponse('invalidRequest', message, param === undefined ? {} : { param });
    return reject(route, response, {
      code: 'invalid_request',
      message,
      ...(param === undefined ? {} : { param }),
    });
  }

  /** Takes a token for this client; a `429` answer when there is none. */
  async function limit(
    route: RelayRoute,
    rule: TokenBucketRule | undefined,
    request: Request,
    context?: NodeRequestContext,
  ): Promise<Response | undefined> {
    if (!rule) return undefined;
    let clientKey = clientAddressOf(request, context);
    if (!clientKey) {
      clientKey = 'shared';
      warnOnce(
        'rate_limit_shared_key',
        'The client address is unknown (no Node adapter context and no rateLimit.clientAddress): every client shares one rate-limit bucket. Give rateLimit.clientAddress.',
      );
    }
    let decision: Awaited<ReturnType<RateLimitStore['take']>>;
    try {
      const taken = store.take(`${route}:${clientKey}`, rule, now());
      // The memory store answers at once: no turn of the event loop for it.
      decision = isPromiseLike(taken) ? await taken : taken;
    } catch (error) {
      // A broken shared store must not stop sales: let the request through and tell the merchant.
      warnOnce('rate_limit_store_failed', 'The rate-limit store failed; requests are not limited.', error);
      return undefined;
    }
    if (decision.allowed) return undefined;
    emit({ type: 'rate_limited', route, clientKey, retryAfterMs: decision.retryAfterMs });
    return rateLimitedResponse(decision.retryAfterMs);
  }

  /** Reads the JSON body within the contract's limit; a ready answer for 413, 415 and bad JSON. */
  async function readBody(route: RelayRoute, request: Request): Promise<unknown | Response> {
    try {
      const body = await readJsonBody(request, RELAY_MAX_BODY_BYTES);
      if (!isJsonObject(body)) return invalid(route, 'Send a JSON object.');
      return body;
    } catch (error) {
      if (!(error instanceof RequestBodyError)) throw error;
      const response = error.toResponse();
      return reject(route, response, {
        code: response.status === 400 ? 'invalid_request' : error.kind,
        message: error.message,
      });
    }
  }

  /** The answer for a failed service call: upstream details go to `onEvent` only. */
  function upstreamFailure(route: RelayRoute, error: unknown): Response {
    if (!(error instanceof ServiceError)) throw error;
    const response = browserAnswerFor(route, error);
    emit({ type: 'upstream_error', route, answeredStatus: response.status, error });
    return response;
  }

  async function price(intent: CheckoutIntent, request: Request): Promise<PricedLineItem[] | Response> {
    let result: unknown;
    try {
      result = await priceCart(intent.cart ?? null, request);
    } catch (error) {
      if (isCartError(error)) return invalid('create', cartErrorMessage(error), cartErrorParam(error));
      emit({ type: 'price_cart_failed', reason: 'priceCart threw.', error });
      return errorResponse('internalError', GENERIC_INTERNAL_MESSAGE);
    }
    const checked = checkPricedLineItems(result);
    if (!checked.ok) {
      emit({ type: 'price_cart_failed', reason: checked.reason });
      return errorResponse('internalError', GENERIC_INTERNAL_MESSAGE);
    }
    return checked.lineItems;
  }

  async function createOrder(request: Request, context?: NodeRequestContext): Promise<Response> {
    const limited = await limit('create', createRule, request, context);
    if (limited) return limited;
    const shopperKey = headerOf(request, IDEMPOTENCY_KEY_HEADER);
    if (!isValidIdempotencyKey(shopperKey)) {
      return invalid(
        'create',
        shopperKey === null
          ? `Send an ${IDEMPOTENCY_KEY_HEADER} header: one random UUID per checkout attempt, reused for its retries.`
          : `The ${IDEMPOTENCY_KEY_HEADER} must be 16 to 255 characters of A-Z, a-z, 0-9, _ and -.`,
        IDEMPOTENCY_KEY_HEADER,
      );
    }
    const body = await readBody('create', request);
    if (body instanceof Response) return body;
    const parsed = checkoutIntentSchema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return invalid(
        'create',
        issue?.message ?? 'Invalid checkout.',
        issue ? issueParam(issue) || undefined : undefined,
      );
    }
    const intent = parsed.data;
    const lineItems = await price(intent, request);
    if (lineItems instanceof Response) return lineItems;
    const idempotencyKey = await scopeIdempotencyKey(shopperKey);
    let answer: Awaited<ReturnType<typeof client.orders.create>>;
    try {
      answer = await client.orders.create(
        {
          execute_payment: true,
          customer_data: intent.customer_data,
          payment_method_data: intent.payment_method_data,
          line_items: lineItems,
        },
        // No abort when the browser leaves: the create runs to its end, so the retry finds it replayable.
        { idempotencyKey },
      );
    } catch (error) {
      return upstreamFailure('create', error);
    }
    const { order } = answer;
    emit({
      type: 'order_created',
      orderId: order.id,
      orderStatus: order.status,
      paymentStatus: order.payment.status,
      lineItems,
      customer: { ...intent.customer_data },
      idempotencyKey,
    });
    // The order exists but its answer will not arrive: the element retries with the same key and gets it.
    if (request.signal.aborted) emit({ type: 'request_aborted', route: 'create', orderId: order.id });
    // Built field by field: nothing else of the service's answer (customer, totals) reaches the browser.
    const created: CreateAnswer = {
      order: { id: order.id, status: order.status, payment: { status: order.payment.status } },
      lookup_token: await lookupTokens.sign(order.id),
    };
    // Given the request, the Node adapter gets a light Response it writes without a web stream.
    return jsonResponse(created, 200, undefined, request);
  }

  async function lookupOrder(request: Request, context?: NodeRequestContext): Promise<Response> {
    const limited = await limit('lookup', lookupRule, request, context);
    if (limited) return limited;
    const body = await readBody('lookup', request);
    if (body instanceof Response) return body;
    const parsed = lookupRequestSchema.safeParse(body);
    const orderIssue = parsed.success
      ? undefined
      : parsed.error.issues.find((issue) => issue.path[0] === 'order_id');
    if (orderIssue) return invalid('lookup', orderIssue.message, 'order_id');
    const orderId = String((body as Record<string, unknown>).order_id);
    // Checked before the service is called: without the token, an order id reads nothing (contract §3).
    if (!parsed.success || !(await lookupTokens.verify(orderId, parsed.data.lookup_token))) {
      const reason = parsed.success ? 'token_mismatch' : 'missing_token';
      emit({ type: 'lookup_denied', orderId, reason });
      return errorResponse('permissionDenied', 'The lookup token does not match this order.');
    }
    let order: Awaited<ReturnType<typeof client.orders.lookup>>['order'];
    try {
      ({ order } = await client.orders.lookup(orderId));
    } catch (error) {
      return upstreamFailure('lookup', error);
    }
    emit({
      type: 'order_looked_up',
      orderId,
      orderStatus: order.status,
      paymentStatus: order.payment.status,
    });
    const answer: LookupAnswer = {
      order: {
        id: order.id,
        status: order.status,
        ...(order.completed_at === undefined ? {} : { completed_at: order.completed_at }),
        payment: { status: order.payment.status },
      },
    };
    return jsonResponse(answer, 200, undefined, request);
  }

  /** Wraps a route: CORS, preflight, method, and a bare 500 for anything unexpected. */
  function route(name: RelayRoute, serve: WebHandler): WebHandler {
    return async (request, context) => {
      if (request.method === 'OPTIONS') return cors.preflight(request);
      let response: Response;
      if (request.method !== 'POST') {
        response = reject(
          name,
          errorResponse('methodNotAllowed', 'Use POST.', { headers: { allow: 'POST, OPTIONS' } }),
          {
            code: 'method_not_allowed',
            message: 'Use POST.',
          },
        );
      } else {
        try {
          response = await serve(request, context);
        } catch (error) {
          emit({ type: 'internal_error', route: name, error });
          response = errorResponse('internalError', GENERIC_INTERNAL_MESSAGE);
        }
      }
      return withHeaders(response, cors.headersFor(request));
    };
  }

  const create = route('create', createOrder);
  const lookup = route('lookup', lookupOrder);
  const handle: WebHandler = (request, context) => {
    const path = pathnameOf(request.url).replace(/\/+$/, '');
    if (path.endsWith('/orders')) return create(request, context);
    if (path.endsWith('/lookup')) return lookup(request, context);
    const message = 'No such checkout route: POST …/orders to create, …/lookup to look up.';
    return withHeaders(
      reject('unknown', errorResponse('resourceNotFound', message), { code: 'resource_not_found', message }),
      cors.headersFor(request),
    );
  };
  // The adapter's own cap sits above the relay's, so the relay's 413 (with CORS headers) is the one seen.
  const node = toNodeListener(handle, { maxBodyBytes: RELAY_MAX_BODY_BYTES * 4 });

  return { create, lookup, handle, node };
}

let sharedNodeFetch: typeof fetch | undefined;

/**
 * On Node, one `createNodeFetch()` for every relay of the process: one
 * keep-alive pool, as undici's global one is for fetch, however many relays
 * are made. Undefined on other runtimes.
 */
function defaultServiceFetch(): typeof fetch | undefined {
  if (!isNodeRuntime()) return undefined;
  sharedNodeFetch ??= createNodeFetch();
  return sharedNodeFetch;
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

/** The browser's answer for a service failure: contract §3's statuses, generic messages. */
function browserAnswerFor(route: RelayRoute, error: ServiceError): Response {
  if (error instanceof ServiceIdempotencyError) {
    return error.retryable
      ? errorResponse(
          'idempotencyRequestInProgress',
          'This checkout attempt is still being processed. Try again in a moment with the same key.',
        )
      : errorResponse(
          'idempotencyKeyReused',
          'This Idempotency-Key was already used for another checkout. Start a new attempt with a new key.',
        );
  }
  if (error instanceof ServiceRateLimitError) return rateLimitedResponse(error.retryAfterMs ?? 1000);
  if (route === 'lookup' && error instanceof ServiceNotFoundError) {
    return errorResponse('resourceNotFound', 'No such order.');
  }
  // Only a field the shopper typed is named back; anything else was built by the server.
  if (
    route === 'create' &&
    error instanceof ServiceInvalidRequestError &&
    error.param !== undefined &&
    /^(?:customer_data|payment_method_data)\.[a-z_.]+$/.test(error.param)
  ) {
    return errorResponse('invalidRequest', 'The payment service did not accept this value.', {
      param: error.param,
    });
  }
  return errorResponse('upstreamFailed', GENERIC_UPSTREAM_MESSAGE);
}

/** `429` with `Retry-After` in whole seconds, at least one (contract §3). */
function rateLimitedResponse(retryAfterMs: number): Response {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return errorResponse('rateLimited', `Too many requests. Try again in ${seconds} s.`, {
    headers: { [RETRY_AFTER_HEADER]: String(seconds) },
  });
}

/** True for a promise or any thenable, as `await` sees them. */
function isPromiseLike<Value>(value: Value | PromiseLike<Value>): value is PromiseLike<Value> {
  return typeof (value as Partial<PromiseLike<Value>>).then === 'function';
}

/** `response` with `headers` added; copies it when its headers are immutable. */
function withHeaders(response: Response, headers: Record<string, string>): Response {
  const entries = Object.entries(headers);
  if (entries.length === 0) return response;
  try {
    for (const [name, value] of entries) response.headers.set(name, value);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    for (const [name, value] of entries) copy.headers.set(name, value);
    return copy;
  }
}

/** Without an `onEvent`, setup warnings still reach the merchant's console; nothing else is logged. */
function warnOnConsole(event: CheckoutRelayEvent): void {
  if (event.type === 'warning') console.warn(`pay-checkout relay: ${event.message}`);
}
