/**
 * The payments service in test mode, offline (contract §4): every endpoint of
 * the service specification behind one web-standard handler, with its
 * authentication (spec §5), error shape (§7), paging (§4) and idempotency
 * (§1.4; contract §4), plus a small control surface of its own to approve or
 * decline a payment. Web-only on purpose: no `node:` import in this module's
 * graph, so it runs on edge runtimes as well as on Node.
 */
import { answerFor } from '../http/answer-errors.js';
import { HttpError } from '../http/http-error.js';
import { jsonResponse } from '../http/json-response.js';
import { pathnameOf } from '../http/pathname.js';
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
  type PaymentPromptJson,
  paymentPromptJson,
} from './order-views.js';
import { randomId } from './random-id.js';
import { parsedBody, readServiceBody } from './read-service-body.js';
import { SandboxControlError } from './sandbox-control-error.js';

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

const DEFAULT_APPROVE_AFTER_MS = 6000;
const DEFAULT_MAX_ORDERS = 100_000;
const DEFAULT_MAX_IDEMPOTENCY_RECORDS = 100_000;

/** The path of the sandbox's own control surface, under the base path. */
export const SANDBOX_CONTROL_PATH = '/_sandbox/payments';

/** The answer of a read endpoint, once its key and body are checked. */
type ReadAnswer = (body: object, session: Session) => Response;

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
    } catch (error) {
      return answerFor(error, request, { unexpectedMessage: 'The sandbox failed to answer.' });
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
      throw new HttpError('resourceNotFound', 'There is no endpoint at this path.');
    }
    if (request.method !== 'POST') {
      throw new HttpError('methodNotAllowed', 'Use POST: every endpoint here takes a JSON body.', {
        headers: { allow: 'POST' },
      });
    }
    if (!route) return this.#control(request, controlAction as ControlAction);

    // Spec §5: the key is checked before the body is read.
    const authentication = this.#keyRegistry.authenticate(
      request.headers.get('authorization'),
      route.permission,
    );
    if (!authentication.ok) throw new HttpError(authentication.kind, authentication.message);
    const body = await readServiceBody(request);
    if (route.kind === 'read') return route.answer(body, authentication.session);
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
      throw new HttpError('invalidRequest', 'Idempotency-Key must be 1 to 255 visible ASCII characters.', {
        param: IDEMPOTENCY_KEY_HEADER,
      });
    }
    const now = this.#now();
    const fingerprint = idempotencyKey === null ? '' : requestFingerprint(path, body);
    if (idempotencyKey !== null) {
      const earlier = this.#idempotency.check(authentication.apiKey, idempotencyKey, fingerprint, now);
      switch (earlier.kind) {
        case 'replay':
          return jsonResponse(earlier.answer.body, earlier.answer.status, {
            [IDEMPOTENT_REPLAYED_HEADER]: 'true',
          });
        case 'in_flight':
          throw new HttpError(
            'idempotencyRequestInProgress',
            'A request with this Idempotency-Key is still being processed; retry shortly.',
          );
        case 'reused_with_other_body':
          throw new HttpError(
            'idempotencyKeyReused',
            'This Idempotency-Key was used with a different request body; use a new key for a new request.',
          );
        case 'absent':
          break;
      }
    }
    // Invalid input is answered before the key is claimed: a 400 is not kept (IDEMPOTENCY_STORES_ERROR_ANSWERS).
    const input = parsedBody(orderCreationSchema, body);
    const reservation =
      idempotencyKey === null
        ? undefined
        : this.#idempotency.reserve(authentication.apiKey, idempotencyKey, fingerprint, now);
    try {
      if (this.#processingDelayMs > 0) await sleep(this.#processingDelayMs);
      const order = this.#createOrder(input, authentication.session);
      const answer: StoredAnswer = { status: ORDER_CREATED_STATUS, body: { order: orderJson(order) } };
      reservation?.complete(answer);
      return jsonResponse(answer.body, answer.status);
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

  #lookupOrder(body: object, session: Session): Response {
    const input = parsedBody(orderLookupSchema, body);
    const order = this.#orders.getForApplication(input.order_id, session.application.id);
    if (!order) throw new HttpError('resourceNotFound', 'No order has this order_id.', { param: 'order_id' });
    settleDuePayment(order, this.#now());
    return jsonResponse({ order: orderJson(order) });
  }

  #pageOrders(body: object, session: Session): Response {
    const { page_number, page_size } = parsedBody(orderPageSchema, body);
    const now = this.#now();
    const orders = this.#orders.page(session.application.id, page_number, page_size).map((order) => {
      settleDuePayment(order, now);
      return orderPageItemJson(order);
    });
    return jsonResponse({ page: { page_number, page_size, orders } });
  }

  #lookupOtp(body: object, session: Session): Response {
    const input = parsedBody(otpLookupSchema, body);
    const order = this.#orders.getByOtpId(input.otp_id, session.application.id);
    if (!order) throw new HttpError('resourceNotFound', 'No OTP has this otp_id.', { param: 'otp_id' });
    settleDuePayment(order, this.#now());
    return jsonResponse({ otp: otpJson(order) });
  }

  #lookupChime(body: object, session: Session): Response {
    const input = parsedBody(chimeLookupSchema, body);
    const order = this.#orders.getByChimeId(input.chime_id, session.application.id);
    if (order) settleDuePayment(order, this.#now());
    // A chime exists once its payment is paid; before that its id is unknown.
    const chime = order && chimeJson(order);
    if (!chime) throw new HttpError('resourceNotFound', 'No chime has this chime_id.', { param: 'chime_id' });
    return jsonResponse({ chime });
  }

  /** The control surface: no key (test mode only), and no customer name or full number in any answer. */
  async #control(request: Request, action: ControlAction): Promise<Response> {
    const body = await readServiceBody(request);
    if (action === 'prompt')
      return jsonResponse({ prompt: this.#prompt(parsedBody(controlOrderSchema, body).order_id) });
    const input = parsedBody(controlDeclineSchema, body);
    const order =
      action === 'approve' ? this.approve(input.order_id) : this.decline(input.order_id, input.reason);
    return jsonResponse({ order });
  }

  #prompt(orderId: string): PaymentPromptJson {
    const order = this.#orders.get(orderId);
    if (!order) throw new HttpError('resourceNotFound', 'No order has this order_id.', { param: 'order_id' });
    settleDuePayment(order, this.#now());
    const prompt = paymentPromptJson(order);
    if (prompt) return prompt;
    throw new HttpError('resourceNotFound', 'This order has no mobile-money payment to prompt for.', {
      param: 'order_id',
    });
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
