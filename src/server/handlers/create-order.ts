/**
 * The relay's create handler (contract §3): checks the shopper's idempotency
 * key and intent, prices the cart on the server, creates the order under the
 * merchant-scoped key, and answers status fields and a lookup token only. A
 * cart refused on a retry is answered by refused-cart.ts.
 */
import type { ConnectionInfo } from '../../http/handler.js';
import { HttpError } from '../../http/http-error.js';
import { readJsonObject } from '../../http/read-json-body.js';
import { IDEMPOTENCY_KEY_HEADER } from '../../shared/service-contract.js';
import {
  type CheckoutIntent,
  checkoutIntentSchema,
  issueParam,
  isValidIdempotencyKey,
} from '../../shared/wire.js';
import { internalRefusal } from '../events/relay-refusal.js';
import { NO_JOURNAL, type RelayJournal } from '../fulfilment/relay-journal.js';
import { takeClientToken, takePromptSlot } from '../limits/relay-limits.js';
import { cartErrorMessage, cartErrorParam, isCartError } from '../pricing/cart-error.js';
import { checkPricedLineItems, type PricedLineItem } from '../pricing/priced-line-items.js';
import { RELAY_MAX_BODY_BYTES, type RelayConfig } from '../relay-config.js';
import {
  type CreateContext,
  createAndAnswer,
  journalUnavailable,
  type ServiceCreateBody,
} from './order-creation.js';
import { answerRefusedCart } from './refused-cart.js';

/** `POST` create-url; throws {@link HttpError} for every refusal. `journal` records it first when there is one. */
export function createOrderHandler(config: RelayConfig, journal: RelayJournal = NO_JOURNAL) {
  return async function createOrder(request: Request, connection?: ConnectionInfo): Promise<Response> {
    await takeClientToken(config, 'create', request, connection);
    const shopperKey = shopperKeyOf(request);
    const intent = parseIntent(await readJsonObject(request, RELAY_MAX_BODY_BYTES));
    const priced = await price(config, intent, request);
    const idempotencyKey = await config.scopeIdempotencyKey(shopperKey);
    const context: CreateContext = { config, journal, request, idempotencyKey };
    if (!priced.ok) return answerRefusedCart(context, intent, priced.refusal);
    await takePromptSlot(config, intent.customer_data.phone_number, idempotencyKey);
    const createBody: ServiceCreateBody = {
      execute_payment: true,
      customer_data: intent.customer_data,
      payment_method_data: intent.payment_method_data,
      line_items: priced.lineItems,
    };
    await recordIntent(context, createBody);
    return createAndAnswer(context, createBody);
  };
}

/** Writes the create to the journal before the service hears of it; a journal that fails refuses the create. */
async function recordIntent(
  { journal, idempotencyKey }: CreateContext,
  createBody: ServiceCreateBody,
): Promise<void> {
  try {
    await journal.beforeCreate(idempotencyKey, createBody);
  } catch (error) {
    throw journalUnavailable(error);
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

/**
 * The merchant's price for the cart, or the `400` of its CartError (answered
 * by the caller, which may find an earlier try's order instead); a `500`
 * refusal (`price_cart_failed`) is thrown for anything else.
 */
async function price(
  config: RelayConfig,
  intent: CheckoutIntent,
  request: Request,
): Promise<{ ok: true; lineItems: PricedLineItem[] } | { ok: false; refusal: HttpError }> {
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
  const checked = checkPricedLineItems(result);
  if (checked.ok) return checked;
  throw internalRefusal({ type: 'price_cart_failed', reason: checked.reason });
}
