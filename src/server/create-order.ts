/**
 * The relay's create handler (contract §3): checks the shopper's idempotency
 * key and intent, prices the cart on the server, creates the order under the
 * merchant-scoped key, and answers status fields and a lookup token only.
 */
import type { ConnectionInfo } from '../http/handler.js';
import { HttpError } from '../http/http-error.js';
import { jsonResponse } from '../http/json-response.js';
import { readJsonObject } from '../http/read-json-body.js';
import { IDEMPOTENCY_KEY_HEADER } from '../shared/service-contract.js';
import {
  type CheckoutIntent,
  type CreateAnswer,
  checkoutIntentSchema,
  issueParam,
  isValidIdempotencyKey,
} from '../shared/wire.js';
import { cartErrorMessage, cartErrorParam, isCartError } from './cart-error.js';
import { NO_JOURNAL, type RelayJournal } from './fulfilment/relay-journal.js';
import { paymentSummary } from './payment-summary.js';
import { checkPricedLineItems, type PricedLineItem } from './priced-line-items.js';
import { RELAY_MAX_BODY_BYTES, type RelayConfig } from './relay-config.js';
import { takeClientToken, takePromptSlot } from './relay-limits.js';
import type { OrderCreateResult } from './service-schemas.js';
import { upstreamFailure } from './upstream-failure.js';

/** The message of a `500` the relay answers: nothing about the server's insides. */
export const GENERIC_INTERNAL_MESSAGE = 'The checkout failed on the server. Try again in a moment.';

/** `POST` create-url; throws {@link HttpError} for every refusal. `journal` records it first when there is one. */
export function createOrderHandler(config: RelayConfig, journal: RelayJournal = NO_JOURNAL) {
  return async function createOrder(request: Request, connection?: ConnectionInfo): Promise<Response> {
    await takeClientToken(config, 'create', request, connection);
    const shopperKey = shopperKeyOf(request);
    const intent = parseIntent(await readJsonObject(request, RELAY_MAX_BODY_BYTES));
    const lineItems = await price(config, intent, request);
    const idempotencyKey = await config.scopeIdempotencyKey(shopperKey);
    await takePromptSlot(config, intent.customer_data.phone_number, idempotencyKey);
    const createBody = {
      execute_payment: true,
      customer_data: intent.customer_data,
      payment_method_data: intent.payment_method_data,
      line_items: lineItems,
    } as const;
    await recordIntent(config, journal, idempotencyKey, createBody);
    let answer: OrderCreateResult;
    try {
      // No abort when the browser leaves: the create runs to its end, so the retry finds it replayable.
      answer = await config.client.orders.create(createBody, { idempotencyKey });
    } catch (error) {
      await journal.createFailed(idempotencyKey, error);
      throw upstreamFailure(config, 'create', error);
    }
    const { order } = answer;
    await journal.created(idempotencyKey, order.id, order.payment.status);
    config.reporter.emit({
      type: 'order_created',
      orderId: order.id,
      orderStatus: order.status,
      paymentStatus: order.payment.status,
      replayed: answer.replayed,
      lineItems,
      customer: { ...intent.customer_data },
      idempotencyKey,
    });
    // The order exists but its answer will not arrive: the element retries with the same key and gets it.
    if (request.signal.aborted)
      config.reporter.emit({ type: 'request_aborted', route: 'create', orderId: order.id });
    // Built field by field: nothing else of the service's answer (customer, totals) reaches the browser.
    const created: CreateAnswer = {
      order: { id: order.id, status: order.status, payment: paymentSummary(order.payment) },
      lookup_token: await config.lookupTokens.sign(order.id),
    };
    return jsonResponse(created);
  };
}

/** Writes the create to the journal before the service hears of it; a journal that fails refuses the create. */
async function recordIntent(
  config: RelayConfig,
  journal: RelayJournal,
  idempotencyKey: string,
  createBody: Record<string, unknown>,
): Promise<void> {
  try {
    await journal.beforeCreate(idempotencyKey, createBody);
  } catch (error) {
    throw config.reporter.report(
      { type: 'journal_unavailable', error },
      new HttpError('internalError', GENERIC_INTERNAL_MESSAGE),
    );
  }
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

/** The merchant's price for the cart; a `400` for a CartError, a reported bare `500` for anything else. */
async function price(
  config: RelayConfig,
  intent: CheckoutIntent,
  request: Request,
): Promise<PricedLineItem[]> {
  let result: unknown;
  try {
    result = await config.priceCart(intent.cart ?? null, request);
  } catch (error) {
    if (isCartError(error)) {
      throw new HttpError('invalidRequest', cartErrorMessage(error), { param: cartErrorParam(error) });
    }
    throw config.reporter.report(
      { type: 'price_cart_failed', reason: 'priceCart threw.', error },
      new HttpError('internalError', GENERIC_INTERNAL_MESSAGE),
    );
  }
  const checked = checkPricedLineItems(result);
  if (checked.ok) return checked.lineItems;
  throw config.reporter.report(
    { type: 'price_cart_failed', reason: checked.reason },
    new HttpError('internalError', GENERIC_INTERNAL_MESSAGE),
  );
}
