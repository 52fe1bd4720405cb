/**
 * `/orders/new` under the sandbox's idempotency: the order record a
 * creation input makes, and the endpoint that replays, refuses or creates.
 */
import { HttpError } from '../http/http-error.js';
import { jsonResponse } from '../http/json-response.js';
import type { Clock } from '../shared/clock.js';
import {
  ID_PREFIX,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  ORDER_CREATED_STATUS,
  PAYMENT_STATUS,
  SERVICE_IDEMPOTENCY_KEY_PATTERN,
} from '../shared/service-contract.js';
import type { Session } from './authentication.js';
import { type IdempotencyCheck, requestFingerprint, type StoredAnswer } from './idempotency-store.js';
import { isoTime, type OrderRecord, payerResponseFor } from './order-record.js';
import { type OrderCreationInput, orderCreationSchema, orderTotal } from './order-schema.js';
import { orderJson } from './order-views.js';
import { randomId } from './random-id.js';
import { parsedBody } from './read-service-body.js';
import type { SandboxLedger } from './sandbox-ledger.js';

/** Who is creating: the API key (idempotency keys are scoped to it) and its session. */
export interface Creator {
  apiKey: string;
  session: Session;
}

/**
 * Answers `/orders/new`. Everything from reading the earlier record to
 * marking the key in flight happens in one synchronous stretch, so
 * concurrent requests with one key create exactly one order.
 */
export async function createOrderIdempotently(
  ledger: SandboxLedger,
  request: Request,
  path: string,
  body: object,
  creator: Creator,
): Promise<Response> {
  const idempotencyKey = request.headers.get(IDEMPOTENCY_KEY_HEADER);
  if (idempotencyKey !== null && !SERVICE_IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey)) {
    throw new HttpError('invalidRequest', 'Idempotency-Key must be 1 to 255 visible ASCII characters.', {
      param: IDEMPOTENCY_KEY_HEADER,
    });
  }
  const now = ledger.clock.now();
  const fingerprint = idempotencyKey === null ? '' : requestFingerprint(path, body);
  if (idempotencyKey !== null) {
    const replay = answerToEarlier(
      ledger.idempotency.check(creator.apiKey, idempotencyKey, fingerprint, now),
    );
    if (replay) return replay;
  }
  // Invalid input is answered before the key is claimed: a 400 is not kept (IDEMPOTENCY_STORES_ERROR_ANSWERS).
  const input = parsedBody(orderCreationSchema, body);
  const reservation =
    idempotencyKey === null
      ? undefined
      : ledger.idempotency.reserve(creator.apiKey, idempotencyKey, fingerprint, now);
  try {
    if (ledger.processingDelayMs > 0) await wait(ledger.clock, ledger.processingDelayMs);
    const order = createOrderRecord(ledger, input, creator.session);
    const answer: StoredAnswer = { status: ORDER_CREATED_STATUS, body: { order: orderJson(order) } };
    reservation?.complete(answer);
    return jsonResponse(answer.body, answer.status);
  } catch (error) {
    reservation?.release();
    throw error;
  }
}

/** The replayed answer, or the refusal, for a key used before; undefined when the key is new. */
function answerToEarlier(earlier: IdempotencyCheck): Response | undefined {
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
      return undefined;
  }
}

/** Creates and stores the order a validated input makes for `session`'s application. */
export function createOrderRecord(
  ledger: SandboxLedger,
  input: OrderCreationInput,
  session: Session,
): OrderRecord {
  const now = ledger.clock.now();
  const application = session.application;
  const method = input.payment_method_data;
  const executesPayment = input.execute_payment === true && method !== undefined;
  const customer = input.customer_data && {
    id: ledger.customers.idFor(application.id, input.customer_data.phone_number),
    name: input.customer_data.name,
    phone_number: input.customer_data.phone_number,
  };
  const firstItem = input.line_items[0];
  if (!firstItem) throw new Error('line_items was validated to be non-empty.');
  const order: OrderRecord = {
    id: newOrderId(ledger),
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
          respondsAt: now + ledger.approveAfterMs,
        }
      : { status: PAYMENT_STATUS.notStarted },
  };
  ledger.orders.add(order);
  return order;
}

function newOrderId(ledger: SandboxLedger): string {
  let id = randomId(ID_PREFIX.order);
  while (ledger.orders.get(id)) id = randomId(ID_PREFIX.order);
  return id;
}

/** Resolves after `ms` on the sandbox's clock: a test's clock holds the simulated work as long as it likes. */
function wait(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimeout(resolve, ms));
}
