/**
 * The part of a create the relay's handler shares with the replay of a
 * refused cart (refused-cart.ts): one service create under the scoped key,
 * recorded in the journal, reported as `order_created`, and the browser's
 * answer built from the order's status fields and a lookup token only.
 */
import { jsonResponse } from '../../http/json-response.js';
import type { CheckoutIntent, CreateAnswer } from '../../shared/wire.js';
import { internalRefusal, type RelayRefusal } from '../events/relay-refusal.js';
import type { RelayJournal } from '../fulfilment/relay-journal.js';
import type { PricedLineItem } from '../pricing/priced-line-items.js';
import type { RelayConfig } from '../relay-config.js';
import type { OrderCreateResult, OrderWithPayment } from '../service-client/service-schemas.js';
import { paymentSummary } from './payment-summary.js';

/** The body the relay sends the service to create an order; the journal keeps it until the service answers. */
export type ServiceCreateBody = {
  execute_payment: true;
  customer_data: CheckoutIntent['customer_data'];
  payment_method_data: CheckoutIntent['payment_method_data'];
  line_items: PricedLineItem[];
};

/** One create request as the relay handles it. */
export interface CreateContext {
  config: RelayConfig;
  journal: RelayJournal;
  request: Request;
  /** The merchant-scoped key (contract §3): the same on every try of the attempt. */
  idempotencyKey: string;
}

/** The `500` refusal (`journal_unavailable`) for a journal that cannot be written or read. */
export function journalUnavailable(error: unknown): RelayRefusal {
  return internalRefusal({ type: 'journal_unavailable', error });
}

/** Asks the service to create `createBody` under the context's key, records and reports it, and answers the browser. */
export async function createAndAnswer(
  context: CreateContext,
  createBody: ServiceCreateBody,
): Promise<Response> {
  const { config, journal, request, idempotencyKey } = context;
  let answer: OrderCreateResult;
  try {
    // No abort when the browser leaves: the create runs to its end, so the retry finds it replayable.
    answer = await config.client.orders.create(createBody, { idempotencyKey });
  } catch (error) {
    // A service failure is the route's to answer and report (`upstream_error`).
    await journal.createFailed(idempotencyKey, error);
    throw error;
  }
  const { order } = answer;
  await journal.created(idempotencyKey, order.id, order.payment.status);
  config.reporter.emit({
    type: 'order_created',
    orderId: order.id,
    orderStatus: order.status,
    paymentStatus: order.payment.status,
    replayed: answer.replayed,
    lineItems: createBody.line_items,
    customer: { ...createBody.customer_data },
    idempotencyKey,
  });
  // The order exists but its answer will not arrive: the element retries with the same key and gets it.
  if (request.signal.aborted)
    config.reporter.emit({ type: 'request_aborted', route: 'create', orderId: order.id });
  return answerOrder(config, order);
}

/** The browser's create answer for `order`, built field by field. */
export async function answerOrder(config: RelayConfig, order: OrderWithPayment): Promise<Response> {
  // Nothing else of the service's answer (customer, totals) reaches the browser.
  const created: CreateAnswer = {
    order: { id: order.id, status: order.status, payment: paymentSummary(order.payment) },
    lookup_token: await config.lookupTokens.sign(order.id),
  };
  return jsonResponse(created);
}
