/**
 * The relay's lookup handler (contract §3): checks the lookup token before
 * the service is called (without it an order id reads nothing) and answers
 * status fields and the amount charged only; no customer data leaves the
 * merchant's server.
 */
import type { ConnectionInfo } from '../../http/handler.js';
import { HttpError } from '../../http/http-error.js';
import { jsonResponse } from '../../http/json-response.js';
import { readJsonObject } from '../../http/read-json-body.js';
import { type LookupAnswer, lookupRequestSchema } from '../../shared/wire.js';
import { RelayRefusal } from '../events/relay-refusal.js';
import { NO_JOURNAL, type RelayJournal } from '../fulfilment/relay-journal.js';
import { serviceReadingOf, serviceTotalOf } from '../fulfilment/service-reading.js';
import { takeClientToken } from '../limits/relay-limits.js';
import { type HandlerConfig, RELAY_MAX_BODY_BYTES } from './handler-config.js';
import { paymentSummary } from './payment-summary.js';

/** `POST` lookup-url; throws for every refusal. A final status settles the order in `journal`. */
export function lookupOrderHandler(config: HandlerConfig, journal: RelayJournal = NO_JOURNAL) {
  return async function lookupOrder(request: Request, connection?: ConnectionInfo): Promise<Response> {
    await takeClientToken(config, 'lookup', request, connection);
    const orderId = await checkedOrderId(config, await readJsonObject(request, RELAY_MAX_BODY_BYTES));
    const { order } = await config.client.orders.lookup(orderId);
    // A final status settles the order in the journal, and delivers it at once.
    await journal.lookedUp(orderId, serviceReadingOf(order));
    config.reporter.emit({
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
        amount: serviceTotalOf(order),
        payment: paymentSummary(order.payment),
      },
    };
    return jsonResponse(answer);
  };
}

/** The order id of a lookup whose token matches it; a `400` for a bad id, a `403` refusal (`lookup_denied`) for a bad token. */
async function checkedOrderId(config: HandlerConfig, body: Record<string, unknown>): Promise<string> {
  const parsed = lookupRequestSchema.safeParse(body);
  const orderIssue = parsed.success
    ? undefined
    : parsed.error.issues.find((issue) => issue.path[0] === 'order_id');
  if (orderIssue) throw new HttpError('invalidRequest', orderIssue.message, { param: 'order_id' });
  const orderId = String(body.order_id);
  if (parsed.success && (await config.lookupTokens.verify(orderId, parsed.data.lookup_token))) return orderId;
  throw new RelayRefusal(new HttpError('permissionDenied', 'The lookup token does not match this order.'), {
    type: 'lookup_denied',
    orderId,
    reason: parsed.success ? 'token_mismatch' : 'missing_token',
  });
}
