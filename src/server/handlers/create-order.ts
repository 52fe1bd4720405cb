/**
 * The relay's create handler, top to bottom: checks the
 * shopper's idempotency key and intent, prices the cart on the server,
 * records the create in the journal with what it is for (the line items,
 * the merchant's reference and metadata) and a keyed digest of
 * what the attempt is (the cart, the name, the number, the network), creates
 * the order under a key bound to that digest, reports `order_created`, and
 * answers status fields, the amount charged, the merchant's reference and a
 * lookup token only. Every refusal is thrown, for the route to answer.
 *
 * The journal's intent is the only thing the service is charged for: once
 * recorded, the journal is read back, and a create whose digest differs from
 * the one it holds under the key is the `422` of a reused key, before the
 * service is called, however two creates race; one whose digest is the same
 * sends the body the journal recorded first, not its own. A create for a
 * checkout (its reference) that already has an open order to the same number
 * answers that order rather than sending the phone a second prompt.
 *
 * A cart `priceCart` refuses (a CartError) is a `400` for a new attempt. But
 * the element resends the very request of an attempt whose earlier tries went
 * unanswered, and one of them may have created an order before the product
 * sold out: the shopper would see the cart error on every retry while the
 * payment prompt is live on their phone. With a journal the relay remembers
 * those tries, so it answers the retry as the create would have:
 * the known order, or the recorded create sent again (the service replays its
 * first answer, or creates it now: the very create the earlier try meant), to
 * the same attempt only. Without a journal the relay has no memory: the `400`
 * stands.
 */
import type { ConnectionInfo } from '../../http/handler.js';
import { HttpError } from '../../http/http-error.js';
import { jsonResponse } from '../../http/json-response.js';
import { readJsonObject } from '../../http/read-json-body.js';
import { normalizeCustomerName } from '../../shared/customer-name.js';
import {
  classifyPaymentStatus,
  IDEMPOTENCY_KEY_HEADER,
  RETRY_AFTER_HEADER,
} from '../../shared/service-contract.js';
import {
  type CheckoutIntent,
  type CreateAnswer,
  checkoutIntentSchema,
  issueParam,
  isValidIdempotencyKey,
} from '../../shared/wire.js';
import { type CheckoutBook, NO_CHECKOUT_BOOK } from '../checkouts/checkout-book.js';
import type { ServerCheckout } from '../checkouts/server-checkout.js';
import { orderCreatedEvent } from '../events/order-created.js';
import { internalRefusal, RelayRefusal } from '../events/relay-refusal.js';
import type { OrderAmount, OrderDetails } from '../journal/journal.js';
import {
  type HeldAttempt,
  JournalTooSlowError,
  type LiveAttempt,
  NO_JOURNAL,
  type RecordedIntent,
  type RelayJournal,
} from '../journal/relay-journal.js';
import { type PromptSlot, takeClientToken, takePromptSlot } from '../limits/relay-limits.js';
import { paymentSummary } from '../orders/payment-summary.js';
import { chargedAmount, serviceReadingOf } from '../orders/service-reading.js';
import { lineItemsTotal } from '../pricing/priced-cart.js';
import type { PricedLineItem } from '../pricing/priced-line-items.js';
import type { OrderCreateResult, OrderWithPayment } from '../service-client/service-schemas.js';
import { isRefusedForGood } from '../service-client/service-trouble.js';
import { type HandlerConfig, RELAY_MAX_BODY_BYTES } from './handler-config.js';
import { closedCheckout, priceRequest } from './priced-request.js';
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
  /** The merchant-scoped key the journal files the attempt under: the same on every try. */
  idempotencyKey: string;
  /** The key the service is called with: the scoped key bound to the attempt's digest. */
  serviceKey: string;
  /** The keyed digest of what this request's attempt is: its cart, name, number and network. */
  attemptDigest: string;
  intent: CheckoutIntent;
}

/** What this request would create: the service's body and what it is for. */
interface OwnCreate {
  createBody: ServiceCreateBody;
  details: OrderDetails;
}

/**
 * `POST` create-url; throws for every refusal. `steps` record the create
 * first when there is a journal; `book` opens the checkouts a `checkout` names.
 */
export function createOrderHandler(
  config: HandlerConfig,
  steps: RelayJournal = NO_JOURNAL,
  book: CheckoutBook = NO_CHECKOUT_BOOK,
) {
  return async function createOrder(request: Request, connection?: ConnectionInfo): Promise<Response> {
    // From its arrival, all the create's waits on the journal share one allowance: it answers within 5 s.
    const journal = steps.forCreate();
    await takeClientToken(config, 'create', request, connection);
    const shopperKey = shopperKeyOf(request);
    const intent = parseIntent(await readJsonObject(request, RELAY_MAX_BODY_BYTES));
    const priced = await pricedIntent(config, book, journal, intent, request, connection);
    const attemptDigest = await config.attemptDigests.attemptDigestOf(intent);
    const context: CreateContext = {
      config,
      journal,
      connection,
      idempotencyKey: await config.scopeIdempotencyKey(shopperKey),
      serviceKey: await config.serviceKeyOf(shopperKey, attemptDigest),
      attemptDigest,
      intent,
    };
    if (!priced.ok) return answerRefusedCart(context, priced.refusal);
    if (priced.opened) await checkOpenForAttempt(context, priced.opened.checkout);
    const { lineItems, reference, metadata } = priced.cart;
    await checkExpectedAmount(context, lineItemsTotal(lineItems));
    const own: OwnCreate = {
      createBody: {
        execute_payment: true,
        customer_data: intent.customer_data,
        payment_method_data: intent.payment_method_data,
        line_items: lineItems,
      },
      details: { reference, metadata, lineItems, amount: lineItemsTotal(lineItems) },
    };
    // Counted per attempt, so a retry is free and another body under the same key is not.
    const slot = await takePromptSlot(config, intent.customer_data.phone_number, context.serviceKey);
    return withPromptSlot(slot, async () => {
      const recorded = await recordIntent(context, own);
      return answerRecorded(context, recorded, own, slot);
    });
  };
}

/**
 * The intent priced: its cart by `priceCart`, or its checkout as recorded,
 * read within the create's allowance; a journal that fails or is too slow
 * refuses the create as it does a journal that cannot record the intent.
 */
async function pricedIntent(
  config: HandlerConfig,
  book: CheckoutBook,
  journal: RelayJournal,
  intent: CheckoutIntent,
  request: Request,
  connection: ConnectionInfo | undefined,
) {
  const read = <T>(work: Promise<T>) =>
    journal.within(work).catch((error: unknown) => {
      throw journalUnavailable(error);
    });
  return priceRequest(config, book, intent, request, connection, read);
}

/**
 * The `409` of a new attempt for a server-created checkout that is paid
 * (`checkout_paid`) or past its expiry (`checkout_expired`). A create under
 * a key whose attempt is recorded already is that attempt's retry, not a new
 * one: it goes on and answers its order, so the shopper's own paid order is
 * never refused.
 */
async function checkOpenForAttempt(context: CreateContext, checkout: ServerCheckout): Promise<void> {
  if (checkout.status === 'open') return;
  let earlier: HeldAttempt | undefined;
  try {
    earlier = await context.journal.recall(context.idempotencyKey);
  } catch (error) {
    throw journalUnavailable(error);
  }
  if (earlier !== undefined && earlier.attemptDigest === context.attemptDigest) return;
  throw closedCheckout(checkout.status);
}

/**
 * The `409` `amount_changed` when the shopper saw another amount than the
 * relay prices now: thrown before the prompt limit or the service, so no
 * prompt is sent for an amount the shopper did not see. An earlier try of
 * the same attempt recorded at the amount the shopper saw is what the create
 * sends, so its retry goes on.
 */
async function checkExpectedAmount(context: CreateContext, amount: OrderAmount): Promise<void> {
  const expected = context.intent.expected_amount;
  if (expected === undefined || sameAmount(expected, amount)) return;
  let earlier: HeldAttempt | undefined;
  try {
    earlier = await context.journal.recall(context.idempotencyKey);
  } catch (error) {
    throw journalUnavailable(error);
  }
  const recorded = earlier?.attemptDigest === context.attemptDigest ? earlier?.details.amount : null;
  if (recorded && sameAmount(expected, recorded)) return;
  throw new HttpError('amountChanged', 'The price has changed: check the new amount, then pay again.', {
    param: 'expected_amount',
    fields: { amount },
  });
}

function sameAmount(a: OrderAmount, b: OrderAmount): boolean {
  return a.currency.toLowerCase() === b.currency.toLowerCase() && a.value === b.value;
}

/**
 * The answer once the intent is recorded, from what the journal holds: this
 * create's own intent is sent; an earlier try's of the same attempt is sent
 * (or its order answered) as the journal recorded it; another attempt under
 * the key is a `422`; another attempt's open prompt to this number is
 * answered with its order. `slot` goes back whenever this create sends no
 * prompt of its own.
 */
async function answerRecorded(
  context: CreateContext,
  recorded: RecordedIntent | undefined,
  own: OwnCreate,
  slot: PromptSlot,
): Promise<Response> {
  if (recorded === undefined) return createAndAnswer(context, own.createBody, own.details);
  if (recorded.holds === 'prompt') return answerOpenPrompt(context, recorded.attempt, own, slot);
  const { attempt } = recorded;
  if (attempt.kind === 'spent') {
    await slot.release();
    throw spentKey(context, attempt);
  }
  if (attempt.attemptDigest === null) return answerUndigestedIntent(context, attempt, own, slot);
  if (attempt.attemptDigest !== context.attemptDigest) {
    await slot.release();
    throw idempotencyKeyReused();
  }
  // Only this create's own new intent sends a prompt of its own; the attempt's earlier try counted one.
  if (attempt.kind === 'created') await slot.release();
  return answerAttempt(context, attempt);
}

/**
 * The answer for an attempt journalled before digests were kept, under the
 * key the service knows it by: an unanswered create is sent as recorded to
 * the same shopper (name, number, network), and is the `422` of a reused key
 * to anyone else before the service is called; a known order's key gets this
 * create, which the service replays or refuses as it would any other.
 */
async function answerUndigestedIntent(
  context: CreateContext,
  attempt: LiveAttempt,
  own: OwnCreate,
  slot: PromptSlot,
): Promise<Response> {
  if (attempt.kind === 'created')
    return createAndAnswer({ ...context, serviceKey: context.idempotencyKey }, own.createBody, own.details);
  if (!sameShopper(attempt.createBody as ServiceCreateBody, context.intent)) {
    await slot.release();
    throw idempotencyKeyReused();
  }
  return answerAttempt(context, attempt);
}

/**
 * The answer when another attempt of the same checkout holds an open prompt
 * to this number: that attempt's order (or its recorded create sent), so the
 * phone gets no second prompt. An order the journal still watches but the
 * service shows settled (declined, paid) is settled now, and this create
 * records its own intent again: the number is free once its prompt is over.
 */
async function answerOpenPrompt(
  context: CreateContext,
  holder: LiveAttempt,
  own: OwnCreate,
  slot: PromptSlot,
): Promise<Response> {
  const { config, journal } = context;
  await slot.release();
  const holderContext = { ...context, idempotencyKey: holder.idempotencyKey };
  if (holder.kind === 'unanswered') return answerAttempt(context, holder);
  const { order } = await config.client.orders.lookup(holder.orderId);
  if (classifyPaymentStatus(order.payment.status) === 'pending')
    return answerLookedUp(holderContext, order, holder.details);
  await journal.lookedUp(order.id, serviceReadingOf(order));
  const again = await takePromptSlot(config, context.intent.customer_data.phone_number, context.serviceKey);
  return withPromptSlot(again, async () => {
    const recorded = await recordIntent(context, own);
    // Settled by now: a prompt still in the way is another create's, answered as any open prompt is.
    if (
      recorded?.holds === 'prompt' &&
      recorded.attempt.kind === 'created' &&
      recorded.attempt.orderId === order.id
    )
      throw new HttpError(
        'idempotencyRequestInProgress',
        'This checkout is still being processed. Try again in a moment.',
      );
    return answerRecorded(context, recorded, own, again);
  });
}

/** The answer of an attempt the journal holds: its order as the service has it now, or its recorded create sent. */
function answerAttempt(context: CreateContext, attempt: LiveAttempt): Promise<Response> {
  const { idempotencyKey, details } = attempt;
  if (attempt.kind === 'created') return answerKnownOrder({ ...context, idempotencyKey }, attempt);
  const { serviceKey } = attempt;
  // Written by the relay itself from a checked intent; JSON keeps it as it was.
  const createBody = attempt.createBody as ServiceCreateBody;
  return createAndAnswer({ ...context, idempotencyKey, serviceKey }, createBody, details);
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
 * Writes the create, what it is for, its network and its digest to the
 * journal before the service hears of it, and reads back what the journal
 * holds; a journal that fails refuses the create.
 */
async function recordIntent(context: CreateContext, { createBody, details }: OwnCreate) {
  const { config, journal, idempotencyKey, serviceKey, attemptDigest } = context;
  const { issuer } = createBody.payment_method_data.mobile_money;
  const promptKey =
    details.reference === null
      ? undefined
      : await config.attemptDigests.promptKeyOf(details.reference, createBody.customer_data.phone_number);
  try {
    return await journal.beforeCreate({
      ...{ idempotencyKey, createBody, details, issuer, attemptDigest, serviceKey },
      ...(promptKey === undefined ? {} : { promptKey }),
    });
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
  const { config, journal, connection, idempotencyKey, serviceKey } = context;
  let answer: OrderCreateResult;
  try {
    // No abort when the browser leaves: the create runs to its end, so the retry finds it replayable.
    answer = await config.client.orders.create(createBody, { idempotencyKey: serviceKey });
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
async function answerRefusedCart(context: CreateContext, refusal: HttpError): Promise<Response> {
  const { journal, idempotencyKey } = context;
  let earlier: HeldAttempt | undefined;
  try {
    earlier = await journal.recall(idempotencyKey);
  } catch (error) {
    // Whether an order exists cannot be told: refused as every create is while the journal fails.
    throw journalUnavailable(error);
  }
  if (earlier === undefined) throw refusal;
  if (earlier.kind === 'spent') throw spentKey(context, earlier);
  if (earlier.attemptDigest === null) return answerUndigested(context, earlier, refusal);
  if (earlier.attemptDigest !== context.attemptDigest) throw idempotencyKeyReused();
  if (earlier.kind === 'created') return answerKnownOrder(context, earlier);
  return withAttemptSlot(context, earlier, () => answerAttempt(context, earlier));
}

/** Runs the resend of an earlier try's create, counted as that try was: free when it was counted in the window. */
async function withAttemptSlot(
  { config }: CreateContext,
  earlier: HeldAttempt & { kind: 'unanswered' },
  resend: () => Promise<Response>,
): Promise<Response> {
  const { customer_data } = earlier.createBody as ServiceCreateBody;
  const slot = await takePromptSlot(config, customer_data.phone_number, earlier.serviceKey);
  return withPromptSlot(slot, resend);
}

/**
 * A refused cart's retry for an attempt journalled before digests were kept:
 * the same shopper is told by the recorded body's name, number and network,
 * or by the network the journal kept and the customer on the service's order
 * (`refusal` when the order shows none, as without a journal).
 */
async function answerUndigested(
  context: CreateContext,
  earlier: LiveAttempt,
  refusal: HttpError,
): Promise<Response> {
  const { config, intent } = context;
  if (earlier.kind === 'unanswered') {
    const createBody = earlier.createBody as ServiceCreateBody;
    // The same key with other shopper details is not a retry of that attempt: the service's 422.
    if (!sameShopper(createBody, intent)) throw idempotencyKeyReused();
    return withAttemptSlot(context, earlier, () => answerAttempt(context, earlier));
  }
  // A row journalled before networks were kept has none: name and number decide alone.
  if (earlier.issuer !== null && earlier.issuer !== intent.payment_method_data.mobile_money.issuer)
    throw idempotencyKeyReused();
  const { order } = await config.client.orders.lookup(earlier.orderId);
  if (!order.customer) throw refusal;
  if (!isOrderOf(order.customer, intent)) throw idempotencyKeyReused();
  return answerLookedUp(context, order, earlier.details);
}

/** The order an earlier try created (or another attempt's open prompt made), as the service has it now, answered as a replay of its create. */
async function answerKnownOrder(
  context: CreateContext,
  { orderId, details }: { orderId: string; details: OrderDetails },
): Promise<Response> {
  const { order } = await context.config.client.orders.lookup(orderId);
  return answerLookedUp(context, order, details);
}

/** Answers `order`, just looked up, as a replay of its create; a final status settles it in the journal, as a browser's lookup does. */
async function answerLookedUp(
  { config, journal, intent, idempotencyKey }: CreateContext,
  order: OrderWithPayment,
  details: OrderDetails,
): Promise<Response> {
  await journal.lookedUp(order.id, serviceReadingOf(order));
  const amount = chargedAmount(order, details);
  // The journal dropped the shopper's details once the order was known: the service's order has them.
  const customer = order.customer ?? intent.customer_data;
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

/**
 * The `422` for a key whose attempt is over (its create given up on before
 * the service answered): nothing is sent under it again, whatever the body,
 * so the element starts a new attempt with a new key. Another attempt under
 * the key is told so; the same attempt is told that it is over.
 */
function spentKey(context: CreateContext, spent: HeldAttempt): HttpError {
  if (spent.attemptDigest !== context.attemptDigest) return idempotencyKeyReused();
  return new HttpError(
    'idempotencyKeyReused',
    'This checkout attempt is over. Start a new attempt with a new key.',
  );
}

/**
 * The refusal (`journal_unavailable`) for a journal that cannot be written or
 * read: a `503` to retry with the same key when it did not answer in time, a
 * `500` when it failed. Either way the service was not called.
 */
function journalUnavailable(error: unknown): RelayRefusal {
  if (!(error instanceof JournalTooSlowError)) return internalRefusal({ type: 'journal_unavailable', error });
  const answer = new HttpError('journalTooSlow', 'The checkout is busy. Try again in a moment.', {
    headers: { [RETRY_AFTER_HEADER]: '1' },
  });
  return new RelayRefusal(answer, { type: 'journal_unavailable', error });
}
