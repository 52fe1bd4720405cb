/**
 * The relay's lookup handler (contract §3): checks the lookup token before
 * the service is called (without it an order id reads nothing) and answers
 * status fields and the amount charged only; no customer data leaves the
 * merchant's server.
 */
import type { ConnectionInfo } from '../../http/handler.js';
import { HttpError } from '../../http/http-error.js';
import { jsonAnswer } from '../../http/node/light-response.js';
import { readJsonObject } from '../../http/read-json-body.js';
import { type LookupAnswer, lookupRequestSchema } from '../../shared/wire.js';
import { RelayRefusal } from '../events/relay-refusal.js';
import { NO_JOURNAL, type RelayJournal } from '../fulfilment/relay-journal.js';
import { takeClientToken } from '../limits/relay-limits.js';
import type { OrderLookups } from '../lookups/order-lookups.js';
import { readingOf } from '../lookups/order-status-read.js';
import { type HandlerConfig, RELAY_MAX_BODY_BYTES } from './handler-config.js';

/** `POST` lookup-url; throws for every refusal. Reads through `lookups`; a final status settles the order in `journal`. */
export function lookupOrderHandler(
  config: HandlerConfig,
  lookups: Pick<OrderLookups, 'forBrowser'>,
  journal: RelayJournal = NO_JOURNAL,
) {
  return async function lookupOrder(request: Request, connection?: ConnectionInfo): Promise<Response> {
    await takeClientToken(config, 'lookup', request, connection);
    const orderId = await checkedOrderId(config, await readJsonObject(request, RELAY_MAX_BODY_BYTES));
    // Shared with every other lookup of the order, in this process and across the fleet.
    const order = await lookups.forBrowser(orderId);
    // A final status settles the order in the journal, and delivers it at once.
    await journal.lookedUp(orderId, readingOf(order));
    config.reporter.emit({
      type: 'order_looked_up',
      orderId,
      orderStatus: order.status,
      paymentStatus: order.payment.status,
    });
    const answer: LookupAnswer = { order: { id: orderId, ...order } };
    return jsonAnswer(request, answer);
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
