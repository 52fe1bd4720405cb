/**
 * The payments service in test mode, offline (contract §4): every endpoint of
 * the service specification behind one web-standard handler, with its
 * authentication (spec §5), error shape (§7), paging (§4) and idempotency
 * (§1.4; contract §4), plus a small control surface of its own to approve or
 * decline a payment. Web-only on purpose: no `node:` import in this module's
 * graph, so it runs on edge runtimes as well as on Node.
 */
import {
  errorResponse,
  isJsonObject,
  jsonResponse,
  pathnameOf,
  RequestBodyError,
  readJsonBody,
} from '../server/http.js';
import { sleep } from '../shared/backoff.js';
import {
  ID_PREFIX,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_RETENTION_MS,
  IDEMPOTENT_REPLAYED_HEADER,
  ORDER_CREATED_STATUS,
  PAYMENT_FAILURE_CODE,
  PAYMENT_STATUS,
  type PaymentFailureCode,
  SERVICE_IDEMPOTENCY_KEY_PATTERN,
  SERVICE_MAX_BODY_BYTES,
  SERVICE_MAX_JSON_DEPTH,
  type ServiceErrorKind,
} from '../shared/service-contract.js';
import {
  type ApiKeyInput,
  KeyRegistry,
  type Permission,
  SANDBOX_KEYS,
  type Session,
} from './authentication.js';
import { CustomerDirectory } from './customer-directory.js';
import { IdempotencyStore, requestFingerprint, type StoredAnswer } from './idempotency-store.js';
import {
  answerPayment,
  isoTime,
  type OrderRecord,
  payerResponseFor,
  settleDuePayment,
} from './order-record.js';
import {
  type BodyParseResult,
  chimeLookupSchema,
  controlDeclineSchema,
  controlOrderSchema,
  type OrderCreationInput,
  orderCreationSchema,
  orderLookupSchema,
  orderPageSchema,
  orderTotal,
  otpLookupSchema,
  parseBody,
} from './order-schema.js';
import { OrderStore } from './order-store.js';
import {
  chimeJson,
  type OrderStatusJson,
  orderJson,
  orderPageItemJson,
  orderStatusJson,
  otpJson,
  paymentPromptJson,
} from './order-views.js';
import { randomId } from './random-id.js';

/** Options of {@link createSandbox}. */
export interface SandboxOptions {
  /** Path prefix the sandbox answers under: `''` (default) or e.g. `'/sandbox'`. Other paths get `404`. */
  basePath?: string;
  /** The simulated payer answers this long after the payment starts. Default 6000 ms. */
  approveAfterMs?: number;
  /** Simulated work time of a write, during which its idempotency key is in flight. Default 0. */
  processingDelayMs?: number;
  /** The clock, in ms (default `Date.now`): payments settle and keys expire by it. */
  now?: () => number;
  /** Orders kept; past it the oldest goes first. Default 100,000. */
  maxOrders?: number;
  /** Idempotency records kept (each also expires after 24 h); past it the oldest goes first. Default 100,000. */
  maxIdempotencyRecords?: number;
}

/** Why the payer declined, for {@link Sandbox.decline}. */
export type DeclineReason = PaymentFailureCode;

/** The keys of a sandbox: add or delete test keys, and see their sessions (spec §5.3, §5.4). */
export interface SandboxKeys {
  /** Adds (or replaces) a test-mode key; throws for a live key. */
  add(input: ApiKeyInput): void;
  /** Deletes a key; its next use gets `401`. True if it existed. */
  revoke(key: string): boolean;
  /** The key's current session, if it was used and the session has not expired. */
  sessionFor(key: string): Session | undefined;
}

/** A running sandbox: its handler, its controls and what it holds. */
export interface Sandbox {
  /** The web-standard handler of the service's endpoints and the control surface. */
  handle(request: Request): Promise<Response>;
  /** The payer approves now: the payment becomes `paid`, the order `completed`. Throws {@link SandboxControlError}. */
  approve(orderId: string): OrderStatusJson;
  /** The payer declines now: the payment becomes `failed`. Throws {@link SandboxControlError}. */
  decline(orderId: string, reason?: DeclineReason): OrderStatusJson;
  /**
   * Creates `count` orders at once without HTTP, as `/orders/new` would for
   * `apiKey`'s application (default `sk_test_sandbox`) with `input`: for paging
   * and volume tests. Throws a TypeError for input `/orders/new` would refuse.
   * Returns the new ids, oldest first.
   */
  seedOrders(count: number, input: unknown, apiKey?: string): string[];
  /** Orders held now. */
  readonly orderCount: number;
  /** Orders ever created, evicted ones included: exactly-once tests count with it. */
  readonly createdOrderCount: number;
  /** Idempotency records held now. */
  readonly idempotencyRecordCount: number;
  /** The API keys the sandbox accepts. */
  readonly keys: SandboxKeys;
}

/** Why a control action could not be done: an unknown order, or a payment no longer waiting. */
export class SandboxControlError extends Error {
  constructor(
    readonly kind: 'resourceNotFound' | 'paymentNotPending',
    message: string,
  ) {
    super(message);
    this.name = 'SandboxControlError';
  }
}

const DEFAULT_APPROVE_AFTER_MS = 6000;
const DEFAULT_MAX_ORDERS = 100_000;
const DEFAULT_MAX_IDEMPOTENCY_RECORDS = 100_000;

/** The path of the sandbox's own control surface, under the base path. */
export const SANDBOX_CONTROL_PATH = '/_sandbox/payments';

/** The answer of a read endpoint, once its key and body are checked. */
type ReadAnswer = (request: Request, body: object, session: Session) => Response;

type ServiceRoute =
  | { kind: 'read'; permission: Permission; answer: ReadAnswer }
  | { kind: 'create-order'; permission: Permission };

/** Creates a sandbox; see {@link SandboxOptions}. */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  return new SandboxService(options);
}

class SandboxService implements Sandbox {
  readonly keys: SandboxKeys;
  readonly #basePath: string;
  readonly #approveAfterMs: number;
  readonly #processingDelayMs: number;
  readonly #now: () => number;
  readonly #orders: OrderStore;
  readonly #customers: CustomerDirectory;
  readonly #idempotency: IdempotencyStore;
  readonly #keyRegistry: KeyRegistry;
  readonly #routes: ReadonlyMap<string, ServiceRoute>;

  constructor(options: SandboxOptions) {
    this.#basePath = normaliseBasePath(options.basePath ?? '');
    this.#approveAfterMs = nonNegative('approveAfterMs', options.approveAfterMs ?? DEFAULT_APPROVE_AFTER_MS);
    this.#processingDelayMs = nonNegative('processingDelayMs', options.processingDelayMs ?? 0);
    this.#now = options.now ?? Date.now;
    const maxOrders = options.maxOrders ?? DEFAULT_MAX_ORDERS;
    this.#orders = new OrderStore(maxOrders);
    this.#customers = new CustomerDirectory(maxOrders);
    this.#idempotency = new IdempotencyStore(
      options.maxIdempotencyRecords ?? DEFAULT_MAX_IDEMPOTENCY_RECORDS,
      IDEMPOTENCY_KEY_RETENTION_MS,
    );
    this.#keyRegistry = new KeyRegistry(this.#now);
    const registry = this.#keyRegistry;
    this.keys = {
      add: (input) => registry.add(input),
      revoke: (key) => registry.revoke(key),
      sessionFor: (key) => registry.sessionFor(key),
    };
    const read = (permission: Permission, answer: ReadAnswer): ServiceRoute => ({
      kind: 'read',
      permission,
      answer: answer.bind(this),
    });
    this.#routes = new Map<string, ServiceRoute>([
      ['/orders/new', { kind: 'create-order', permission: 'orders:write' }],
      ['/orders/lookup', read('orders:read', this.#lookupOrder)],
      ['/orders/page', read('orders:read', this.#pageOrders)],
      ['/otp/lookup', read('otp:read', this.#lookupOtp)],
      ['/chimes/lookup', read('chimes:read', this.#lookupChime)],
    ]);
    // Callers pass `sandbox.handle` around on its own (toNodeListener, edge `fetch` exports).
    this.handle = this.handle.bind(this);
  }

  get orderCount(): number {
    return this.#orders.size;
  }

  get createdOrderCount(): number {
    return this.#orders.createdCount;
  }

  get idempotencyRecordCount(): number {
    return this.#idempotency.size;
  }

  async handle(request: Request): Promise<Response> {
    try {
      return await this.#route(request);
    } catch {
      return failure(request, 'internalError', 'The sandbox failed to answer.');
    }
  }

  approve(orderId: string): OrderStatusJson {
    return this.#answerPayer(orderId, { approve: true });
  }

  decline(orderId: string, reason: DeclineReason = PAYMENT_FAILURE_CODE.declined): OrderStatusJson {
    return this.#answerPayer(orderId, { approve: false, failureCode: reason });
  }

  seedOrders(count: number, input: unknown, apiKey: string = SANDBOX_KEYS.secret): string[] {
    const authentication = this.#keyRegistry.authenticate(`Bearer ${apiKey}`, 'orders:write');
    if (!authentication.ok) throw new TypeError(authentication.message);
    const parsed = parseBody(orderCreationSchema, input);
    if (!parsed.ok) throw new TypeError(`${parsed.param}: ${parsed.message}`);
    const ids: string[] = [];
    for (let index = 0; index < count; index++) {
      ids.push(this.#createOrder(parsed.value, authentication.session).id);
    }
    return ids;
  }

  async #route(request: Request): Promise<Response> {
    const path = pathnameOf(request.url);
    const localPath = path.startsWith(`${this.#basePath}/`) ? path.slice(this.#basePath.length) : undefined;
    const route = localPath === undefined ? undefined : this.#routes.get(localPath);
    const controlAction =
      localPath?.startsWith(`${SANDBOX_CONTROL_PATH}/`) === true
        ? localPath.slice(SANDBOX_CONTROL_PATH.length + 1)
        : undefined;
    if (!route && !isControlAction(controlAction)) {
      return failure(request, 'resourceNotFound', 'There is no endpoint at this path.');
    }
    if (request.method !== 'POST') {
      return failure(request, 'methodNotAllowed', 'Use POST: every endpoint here takes a JSON body.', {
        headers: { allow: 'POST' },
      });
    }
    if (!route) return this.#control(request, controlAction as ControlAction);

    // Spec §5: the key is checked before the body is read.
    const authentication = this.#keyRegistry.authenticate(
      request.headers.get('authorization'),
      route.permission,
    );
    if (!authentication.ok) return failure(request, authentication.kind, authentication.message);
    const body = await readObjectBody(request);
    if (body instanceof Response) return body;
    if (route.kind === 'read') return route.answer(request, body, authentication.session);
    return this.#createOrderIdempotently(request, localPath as string, body, authentication);
  }

  /**
   * `/orders/new` under contract §4's idempotency. Everything from reading the
   * earlier record to marking the key in flight happens in one synchronous
   * stretch, so concurrent requests with one key create exactly one order.
   */
  async #createOrderIdempotently(
    request: Request,
    path: string,
    body: object,
    authentication: { apiKey: string; session: Session },
  ): Promise<Response> {
    const idempotencyKey = request.headers.get(IDEMPOTENCY_KEY_HEADER);
    if (idempotencyKey !== null && !SERVICE_IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey)) {
      return failure(
        request,
        'invalidRequest',
        'Idempotency-Key must be 1 to 255 visible ASCII characters.',
        {
          param: IDEMPOTENCY_KEY_HEADER,
        },
      );
    }
    const now = this.#now();
    const fingerprint = idempotencyKey === null ? '' : requestFingerprint(path, body);
    if (idempotencyKey !== null) {
      const earlier = this.#idempotency.check(authentication.apiKey, idempotencyKey, fingerprint, now);
      switch (earlier.kind) {
        case 'replay':
          return jsonResponse(
            earlier.answer.body,
            earlier.answer.status,
            { [IDEMPOTENT_REPLAYED_HEADER]: 'true' },
            request,
          );
        case 'in_flight':
          return failure(
            request,
            'idempotencyRequestInProgress',
            'A request with this Idempotency-Key is still being processed; retry shortly.',
          );
        case 'reused_with_other_body':
          return failure(
            request,
            'idempotencyKeyReused',
            'This Idempotency-Key was used with a different request body; use a new key for a new request.',
          );
        case 'absent':
          break;
      }
    }
    // Invalid input is answered before the key is claimed: a 400 is not kept (IDEMPOTENCY_STORES_ERROR_ANSWERS).
    const input = parseBody(orderCreationSchema, body);
    if (!input.ok) return invalidRequest(request, input);
    const reservation =
      idempotencyKey === null
        ? undefined
        : this.#idempotency.reserve(authentication.apiKey, idempotencyKey, fingerprint, now);
    try {
      if (this.#processingDelayMs > 0) await sleep(this.#processingDelayMs);
      const order = this.#createOrder(input.value, authentication.session);
      const answer: StoredAnswer = { status: ORDER_CREATED_STATUS, body: { order: orderJson(order) } };
      reservation?.complete(answer);
      return jsonResponse(answer.body, answer.status, undefined, request);
    } catch (error) {
      reservation?.release();
      throw error;
    }
  }

  #createOrder(input: OrderCreationInput, session: Session): OrderRecord {
    const now = this.#now();
    const application = session.application;
    const method = input.payment_method_data;
    const executesPayment = input.execute_payment === true && method !== undefined;
    const customer = input.customer_data && {
      id: this.#customers.idFor(application.id, input.customer_data.phone_number),
      name: input.customer_data.name,
      phone_number: input.customer_data.phone_number,
    };
    const firstItem = input.line_items[0];
    if (!firstItem) throw new Error('line_items was validated to be non-empty.');
    const order: OrderRecord = {
      id: this.#newOrderId(),
      applicationId: application.id,
      applicationName: application.name,
      initiatedAt: isoTime(now),
      lineItems: input.line_items,
      productsCount: input.line_items.reduce((count, item) => count + item.product.quantity, 0),
      // CURRENCIES holds one currency, so every item is priced in the first item's.
      total: { currency: firstItem.product.price.currency, value: orderTotal(input.line_items) ?? 0 },
      customer,
      paymentMethod: method,
      otpId: executesPayment ? randomId(ID_PREFIX.otp) : undefined,
      chimeId: executesPayment ? randomId(ID_PREFIX.chime) : undefined,
      payment: executesPayment
        ? {
            status: PAYMENT_STATUS.requiresAction,
            payerResponse: payerResponseFor(method.mobile_money.number),
            respondsAt: now + this.#approveAfterMs,
          }
        : { status: PAYMENT_STATUS.notStarted },
    };
    this.#orders.add(order);
    return order;
  }

  #newOrderId(): string {
    let id = randomId(ID_PREFIX.order);
    while (this.#orders.get(id)) id = randomId(ID_PREFIX.order);
    return id;
  }

  #lookupOrder(request: Request, body: object, session: Session): Response {
    const input = parseBody(orderLookupSchema, body);
    if (!input.ok) return invalidRequest(request, input);
    const order = this.#orders.getForApplication(input.value.order_id, session.application.id);
    if (!order)
      return failure(request, 'resourceNotFound', 'No order has this order_id.', { param: 'order_id' });
    settleDuePayment(order, this.#now());
    return json(request, { order: orderJson(order) });
  }

  #pageOrders(request: Request, body: object, session: Session): Response {
    const input = parseBody(orderPageSchema, body);
    if (!input.ok) return invalidRequest(request, input);
    const { page_number, page_size } = input.value;
    const now = this.#now();
    const orders = this.#orders.page(session.application.id, page_number, page_size).map((order) => {
      settleDuePayment(order, now);
      return orderPageItemJson(order);
    });
    return json(request, { page: { page_number, page_size, orders } });
  }

  #lookupOtp(request: Request, body: object, session: Session): Response {
    const input = parseBody(otpLookupSchema, body);
    if (!input.ok) return invalidRequest(request, input);
    const order = this.#orders.getByOtpId(input.value.otp_id, session.application.id);
    if (!order) return failure(request, 'resourceNotFound', 'No OTP has this otp_id.', { param: 'otp_id' });
    settleDuePayment(order, this.#now());
    return json(request, { otp: otpJson(order) });
  }

  #lookupChime(request: Request, body: object, session: Session): Response {
    const input = parseBody(chimeLookupSchema, body);
    if (!input.ok) return invalidRequest(request, input);
    const order = this.#orders.getByChimeId(input.value.chime_id, session.application.id);
    if (order) settleDuePayment(order, this.#now());
    // A chime exists once its payment is paid; before that its id is unknown.
    const chime = order && chimeJson(order);
    if (!chime)
      return failure(request, 'resourceNotFound', 'No chime has this chime_id.', { param: 'chime_id' });
    return json(request, { chime });
  }

  /** The control surface: no key (test mode only), and no customer name or full number in any answer. */
  async #control(request: Request, action: ControlAction): Promise<Response> {
    const body = await readObjectBody(request);
    if (body instanceof Response) return body;
    if (action === 'prompt') {
      const input = parseBody(controlOrderSchema, body);
      if (!input.ok) return invalidRequest(request, input);
      const order = this.#orders.get(input.value.order_id);
      if (!order)
        return failure(request, 'resourceNotFound', 'No order has this order_id.', { param: 'order_id' });
      settleDuePayment(order, this.#now());
      const prompt = paymentPromptJson(order);
      if (!prompt) {
        return failure(request, 'resourceNotFound', 'This order has no mobile-money payment to prompt for.', {
          param: 'order_id',
        });
      }
      return json(request, { prompt });
    }
    const input = parseBody(controlDeclineSchema, body);
    if (!input.ok) return invalidRequest(request, input);
    try {
      const order =
        action === 'approve'
          ? this.approve(input.value.order_id)
          : this.decline(input.value.order_id, input.value.reason);
      return json(request, { order });
    } catch (error) {
      if (error instanceof SandboxControlError) return failure(request, error.kind, error.message);
      throw error;
    }
  }

  #answerPayer(
    orderId: string,
    answer: { approve: true } | { approve: false; failureCode: PaymentFailureCode },
  ): OrderStatusJson {
    const order = this.#orders.get(orderId);
    if (!order) throw new SandboxControlError('resourceNotFound', 'No order has this order_id.');
    if (!answerPayment(order, this.#now(), answer)) {
      throw new SandboxControlError(
        'paymentNotPending',
        `The payment is ${order.payment.status}: only a payment that is requires_action can be ${answer.approve ? 'approved' : 'declined'}.`,
      );
    }
    return orderStatusJson(order);
  }
}

const CONTROL_ACTIONS = ['approve', 'decline', 'prompt'] as const;
type ControlAction = (typeof CONTROL_ACTIONS)[number];

function isControlAction(action: string | undefined): action is ControlAction {
  return (CONTROL_ACTIONS as readonly (string | undefined)[]).includes(action);
}

/** Reads the body as a JSON object, or gives the error answer (415, 413, 400). */
async function readObjectBody(request: Request): Promise<object | Response> {
  let body: unknown;
  try {
    body = await readJsonBody(request, SERVICE_MAX_BODY_BYTES);
  } catch (error) {
    if (error instanceof RequestBodyError) return error.toResponse(request);
    throw error;
  }
  if (!isJsonObject(body)) return failure(request, 'invalidRequest', 'The body must be a JSON object.');
  if (nestsDeeperThan(body, SERVICE_MAX_JSON_DEPTH)) {
    return failure(
      request,
      'invalidRequest',
      `The body nests more than ${SERVICE_MAX_JSON_DEPTH} levels deep.`,
    );
  }
  return body;
}

/** True when objects and arrays in `value` nest deeper than `maxDepth`; iterative, so any body is safe to check. */
function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  const pending: { node: unknown; depth: number }[] = [{ node: value, depth: 1 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (next.node === null || typeof next.node !== 'object') continue;
    if (next.depth > maxDepth) return true;
    for (const child of Object.values(next.node)) pending.push({ node: child, depth: next.depth + 1 });
  }
  return false;
}

// Every answer names its request: behind the Node adapter that makes it a lightweight Response.
function json(request: Request, body: unknown): Response {
  return jsonResponse(body, 200, undefined, request);
}

function failure(
  request: Request,
  kind: ServiceErrorKind,
  message: string,
  options: { param?: string; headers?: HeadersInit } = {},
): Response {
  return errorResponse(kind, message, { ...options, request });
}

function invalidRequest(request: Request, problem: BodyParseResult<unknown> & { ok: false }): Response {
  return failure(request, 'invalidRequest', problem.message, { param: problem.param });
}

function normaliseBasePath(basePath: string): string {
  const trimmed = basePath.replace(/\/+$/, '');
  if (trimmed !== '' && !/^\/[A-Za-z0-9._~\-/]*$/.test(trimmed)) {
    throw new TypeError('basePath must be empty or a path starting with "/", such as "/sandbox".');
  }
  return trimmed;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a number of at least 0.`);
  return value;
}
