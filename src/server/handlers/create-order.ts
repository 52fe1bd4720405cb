/**
 * The relay's create handler (contract §3), top to bottom: checks the
 * shopper's idempotency key and intent, prices the cart on the server,
 * records the create in the journal with what it is for (the line items,
 * the merchant's reference and metadata: contract §6), creates the order
 * under the merchant-scoped key, reports `order_created`, and answers status
 * fields, the amount charged, the merchant's reference and a lookup token
 * only. Every refusal is thrown, for the route to answer.
 *
 * A cart `priceCart` refuses (a CartError) is a `400` for a new attempt. But
 * the element resends the very request of an attempt whose earlier tries went
 * unanswered, and one of them may have created an order before the product
 * sold out: the shopper would see the cart error on every retry while the
 * payment prompt is live on their phone. With a journal the relay remembers
 * those tries (contract §6), so it answers the retry as the create would have:
 * the known order, or the recorded create sent again under the same key (the
 * service replays its first answer, or creates it now: the very create the
 * earlier try meant), to the same shopper only: the same key with another
 * name, number or network is the service's `422`, whatever the cart. Without
 * a journal the relay has no memory: the `400` stands.
 */
import type { ConnectionInfo } from '../../http/handler.js';
import { HttpError } from '../../http/http-error.js';
import { jsonResponse } from '../../http/json-response.js';
import { readJsonObject } from '../../http/read-json-body.js';
import { normalizeCustomerName } from '../../shared/customer-name.js';
import { IDEMPOTENCY_KEY_HEADER } from '../../shared/service-contract.js';
import {
  type CheckoutIntent,
  type CreateAnswer,
  checkoutIntentSchema,
  issueParam,
  isValidIdempotencyKey,
} from '../../shared/wire.js';
import { orderCreatedEvent } from '../events/order-created.js';
import { internalRefusal, RelayRefusal } from '../events/relay-refusal.js';
import { NO_JOURNAL, type RecalledCreate, type RelayJournal } from '../fulfilment/relay-journal.js';
import { chargedAmount, serviceReadingOf } from '../fulfilment/service-reading.js';
import { isRefusedForGood } from '../fulfilment/service-trouble.js';
import type { OrderAmount, OrderDetails } from '../journal/journal.js';
import { type PromptSlot, takeClientToken, takePromptSlot } from '../limits/relay-limits.js';
import { cartErrorMessage, cartErrorParam, isCartError } from '../pricing/cart-error.js';
import { checkPricedCart, lineItemsTotal, type PricedCart } from '../pricing/priced-cart.js';
import type { PricedLineItem } from '../pricing/priced-line-items.js';
import type { OrderCreateResult, OrderWithPayment } from '../service-client/service-schemas.js';
import { type HandlerConfig, RELAY_MAX_BODY_BYTES } from './handler-config.js';
import { paymentSummary } from './payment-summary.js';
import { idempotencyKeyReused } from './upstream-answer.js';

/** The body the relay sends the service to create an order; the journal keeps it until the service answers. */
type ServiceCreateBody = {
  execute_payment: true;
  customer_data: CheckoutIntent['customer_data'];
  payment_method_data: CheckoutIntent['payment_method_data'];
  line_items: PricedLineItem[];
};

/** One create request as the relay handles it. */
interface CreateContext {
  config: HandlerConfig;
  journal: RelayJournal;
  /** What the runtime knows of the connection: its `signal` says the shopper left. */
  connection: ConnectionInfo | undefined;
  /** The merchant-scoped key (contract §3): the same on every try of the attempt. */
  idempotencyKey: string;
}

/** `POST` create-url; throws for every refusal. `journal` records the create first when there is one. */
export function createOrderHandler(config: HandlerConfig, journal: RelayJournal = NO_JOURNAL) {
  return async function createOrder(request: Request, connection?: ConnectionInfo): Promise<Response> {
    await takeClientToken(config, 'create', request, connection);
    const shopperKey = shopperKeyOf(request);
    const intent = parseIntent(await readJsonObject(request, RELAY_MAX_BODY_BYTES));
    const priced = await price(config, intent, request);
    const idempotencyKey = await config.scopeIdempotencyKey(shopperKey);
    const context: CreateContext = { config, journal, connection, idempotencyKey };
    if (!priced.ok) return answerRefusedCart(context, intent, priced.refusal);
    const slot = await takePromptSlot(config, intent.customer_data.phone_number, idempotencyKey);
    const { lineItems, reference, metadata } = priced.cart;
    const createBody: ServiceCreateBody = {
      execute_payment: true,
      customer_data: intent.customer_data,
      payment_method_data: intent.payment_method_data,
      line_items: lineItems,
    };
    const details: OrderDetails = { reference, metadata, lineItems, amount: lineItemsTotal(lineItems) };
    return withPromptSlot(slot, async () => {
      await recordIntent(context, createBody, details);
      return createAndAnswer(context, createBody, details);
    });
  };
}

/** Runs a create that counted `slot`, and gives the slot back when the create surely sent no prompt. */
async function withPromptSlot(slot: PromptSlot, create: () => Promise<Response>): Promise<Response> {
  try {
    return await create();
  } catch (error) {
    if (sentNoPrompt(error)) await slot.release();
    throw error;
  }
}

/** A create the service refused for good (`4xx`: no order exists), or one the journal stopped before the service heard of it. */
function sentNoPrompt(error: unknown): boolean {
  return (
    isRefusedForGood(error) || (error instanceof RelayRefusal && error.event.type === 'journal_unavailable')
  );
}

/** The shopper's `Idempotency-Key`; a `400` when it is missing or malformed. */
function shopperKeyOf(request: Request): string {
  const shopperKey = request.headers.get(IDEMPOTENCY_KEY_HEADER);
  if (isValidIdempotencyKey(shopperKey)) return shopperKey;
  throw new HttpError(
    'invalidRequest',
    shopperKey === null
      ? `Send an ${IDEMPOTENCY_KEY_HEADER} header: one random UUID per checkout attempt, reused for its retries.`
      : `The ${IDEMPOTENCY_KEY_HEADER} must be 16 to 255 characters of A-Z, a-z, 0-9, _ and -.`,
    { param: IDEMPOTENCY_KEY_HEADER },
  );
}

function parseIntent(body: Record<string, unknown>): CheckoutIntent {
  const parsed = checkoutIntentSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const param = issue ? issueParam(issue) || undefined : undefined;
  throw new HttpError(
    'invalidRequest',
    issue?.message ?? 'Invalid checkout.',
    param === undefined ? {} : { param },
  );
}

/**
 * The merchant's price for the cart, with their reference and metadata, or
 * the `400` of its CartError (answered by the caller, which may find an
 * earlier try's order instead); a `500` refusal (`price_cart_failed`, naming
 * the field that was wrong) is thrown for anything else.
 */
async function price(
  config: HandlerConfig,
  intent: CheckoutIntent,
  request: Request,
): Promise<{ ok: true; cart: PricedCart } | { ok: false; refusal: HttpError }> {
  let result: unknown;
  try {
    result = await config.priceCart(intent.cart ?? null, request);
  } catch (error) {
    if (isCartError(error)) {
      const refusal = new HttpError('invalidRequest', cartErrorMessage(error), {
        param: cartErrorParam(error),
      });
      return { ok: false, refusal };
    }
    throw internalRefusal({ type: 'price_cart_failed', reason: 'priceCart threw.', error });
  }
  const checked = checkPricedCart(result);
  if (checked.ok) return checked;
  throw internalRefusal({ type: 'price_cart_failed', reason: checked.reason, field: checked.field });
}

/** Writes the create, what it is for and its network to the journal before the service hears of it; a journal that fails refuses the create. */
async function recordIntent(
  { journal, idempotencyKey }: CreateContext,
  createBody: ServiceCreateBody,
  details: OrderDetails,
): Promise<void> {
  const { issuer } = createBody.payment_method_data.mobile_money;
  try {
    await journal.beforeCreate(idempotencyKey, createBody, details, issuer);
  } catch (error) {
    throw journalUnavailable(error);
  }
}

/** Asks the service to create `createBody` under the context's key, records and reports it, and answers the browser. */
async function createAndAnswer(
  context: CreateContext,
  createBody: ServiceCreateBody,
  details: OrderDetails,
): Promise<Response> {
  const { config, journal, connection, idempotencyKey } = context;
  let answer: OrderCreateResult;
  try {
    // No abort when the browser leaves: the create runs to its end, so the retry finds it replayable.
    answer = await config.client.orders.create(createBody, { idempotencyKey });
  } catch (error) {
    // A service failure is the route's to answer and report (`upstream_error`).
    await journal.createFailed(idempotencyKey, error);
    throw error;
  }
  const { order, replayed } = answer;
  await journal.created(idempotencyKey, order.id, serviceReadingOf(order));
  const amount = chargedAmount(order, details);
  const customer = createBody.customer_data;
  const source = 'create';
  config.reporter.emit(
    orderCreatedEvent({ order, replayed, amount, customer, details, idempotencyKey, source }),
  );
  // The order exists but its answer will not arrive: the element retries with the same key and gets it.
  if (connection?.signal?.aborted)
    config.reporter.emit({ type: 'request_aborted', route: 'create', orderId: order.id });
  return answerOrder(config, order, amount, details.reference);
}

/** The browser's create answer for `order`, built field by field. */
async function answerOrder(
  config: HandlerConfig,
  order: OrderWithPayment,
  amount: OrderAmount,
  reference: string | null,
): Promise<Response> {
  // Nothing else of the service's answer (customer, line items) reaches the browser.
  const created: CreateAnswer = {
    order: { id: order.id, status: order.status, amount, payment: paymentSummary(order.payment) },
    lookup_token: await config.lookupTokens.sign(order.id),
    reference,
  };
  return jsonResponse(created);
}

/** The answer to a create whose cart was refused with `refusal`: an earlier try's order, or `refusal`. */
async function answerRefusedCart(
  context: CreateContext,
  intent: CheckoutIntent,
  refusal: HttpError,
): Promise<Response> {
  const { config, journal, idempotencyKey } = context;
  let earlier: RecalledCreate | undefined;
  try {
    earlier = await journal.recall(idempotencyKey);
  } catch (error) {
    // Whether an order exists cannot be told: refused as every create is while the journal fails.
    throw journalUnavailable(error);
  }
  if (earlier === undefined) throw refusal;
  if (earlier.kind === 'created') return answerKnownOrder(context, intent, earlier, refusal);
  // Written by the relay itself from a checked intent; JSON keeps it as it was.
  const createBody = earlier.createBody as ServiceCreateBody;
  // The same key with other shopper details is not a retry of that attempt: the service's 422.
  if (!sameShopper(createBody, intent)) throw idempotencyKeyReused();
  // Counted under the attempt's key: free when the earlier try was counted in the window, as it was.
  const slot = await takePromptSlot(config, createBody.customer_data.phone_number, idempotencyKey);
  return withPromptSlot(slot, () => createAndAnswer(context, createBody, earlier.details));
}

/**
 * The order an earlier try created, as the service has it now, answered as a
 * replay of that create: only to the shopper it is for, by the network the
 * journal recorded (the service's order shows none) and the name and number
 * on the service's order (its customer); `refusal` when the order shows no
 * customer, as without a journal.
 */
async function answerKnownOrder(
  { config, journal, idempotencyKey }: CreateContext,
  intent: CheckoutIntent,
  { orderId, issuer, details }: { orderId: string; issuer: string | null; details: OrderDetails },
  refusal: HttpError,
): Promise<Response> {
  // A row journalled before networks were kept has none: name and number decide alone.
  if (issuer !== null && issuer !== intent.payment_method_data.mobile_money.issuer)
    throw idempotencyKeyReused();
  const { order } = await config.client.orders.lookup(orderId);
  if (!order.customer) throw refusal;
  if (!isOrderOf(order.customer, intent)) throw idempotencyKeyReused();
  // A final status settles the order in the journal, as a browser's lookup does.
  await journal.lookedUp(orderId, serviceReadingOf(order));
  const amount = chargedAmount(order, details);
  // The journal dropped the shopper's details once the order was known: this try's are the same shopper's.
  const customer = intent.customer_data;
  config.reporter.emit(
    orderCreatedEvent({ order, replayed: true, amount, customer, details, idempotencyKey, source: 'create' }),
  );
  return answerOrder(config, order, amount, details.reference);
}

/** True when the service's customer of an order has this intent's name and number. */
function isOrderOf(customer: { name: string; phone_number: string }, intent: CheckoutIntent): boolean {
  return (
    normalizeCustomerName(customer.name) === intent.customer_data.name &&
    customer.phone_number === intent.customer_data.phone_number
  );
}

function sameShopper(createBody: ServiceCreateBody, intent: CheckoutIntent): boolean {
  return (
    JSON.stringify(createBody.customer_data) === JSON.stringify(intent.customer_data) &&
    JSON.stringify(createBody.payment_method_data) === JSON.stringify(intent.payment_method_data)
  );
}

/** The `500` refusal (`journal_unavailable`) for a journal that cannot be written or read. */
function journalUnavailable(error: unknown): RelayRefusal {
  return internalRefusal({ type: 'journal_unavailable', error });
}
