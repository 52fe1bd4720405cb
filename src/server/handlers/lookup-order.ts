/**
 * The relay's lookup handler: checks the lookup token before
 * the service is called (without it an order id reads nothing) and answers
 * status fields and the amount charged only; no customer data leaves the
 * merchant's server.
 */
import type { ConnectionInfo } from '../../http/handler.js';
import { HttpError } from '../../http/http-error.js';
import { jsonAnswer } from '../../http/json-response.js';
import { readJsonObject } from '../../http/read-json-body.js';
import { ORDER_ID_PATTERN } from '../../shared/service-contract.js';
import type { LookupAnswer } from '../../shared/wire.js';
import { RelayRefusal } from '../events/relay-refusal.js';
import { NO_JOURNAL, type RelayJournal } from '../journal/relay-journal.js';
import { takeClientToken } from '../limits/relay-limits.js';
import { journalDeadline } from '../lookups/journal-sharing.js';
import type { OrderLookups } from '../lookups/order-lookups.js';
import { readingOf } from '../orders/order-status-read.js';
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
    // However slow the journal, the shopper waits for it 1.5 s in all, then hears the service's answer.
    const deadline = journalDeadline(config.clock);
    // Shared with every other lookup of the order, in this process and across the fleet.
    const order = await lookups.forBrowser(orderId, deadline);
    // A final status settles the order in the journal, and delivers it at once; past the
    // deadline the write goes on (the relay's close() waits for it) without the shopper.
    if (journal !== NO_JOURNAL)
      await deadline.within(journal.lookedUp(orderId, readingOf(order))).catch(() => {});
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

/** Longest `lookup_token` a lookup request may carry (`lookupRequestSchema`, shared/wire.ts). */
const MAX_LOOKUP_TOKEN_LENGTH = 256;

/**
 * The order id of a lookup whose token matches it; a `400` for a bad id, a
 * `403` refusal (`lookup_denied`) for a bad token. The checks and messages
 * are `lookupRequestSchema`'s (shared/wire.ts), written out: on every lookup
 * they cost a fraction of the schema's parse (test/node/relay/lookup-request-check.test.ts
 * holds them to it).
 */
async function checkedOrderId(config: HandlerConfig, body: Record<string, unknown>): Promise<string> {
  const orderId = body.order_id;
  if (typeof orderId !== 'string') {
    throw new HttpError('invalidRequest', 'Give the order_id.', { param: 'order_id' });
  }
  if (!ORDER_ID_PATTERN.test(orderId)) {
    throw new HttpError('invalidRequest', 'Give a valid order_id.', { param: 'order_id' });
  }
  const token = body.lookup_token;
  const tokenGiven = typeof token === 'string' && token.length >= 1 && withinTokenLength(token);
  if (tokenGiven && (await config.lookupTokens.verify(orderId, token))) return orderId;
  throw new RelayRefusal(new HttpError('permissionDenied', 'The lookup token does not match this order.'), {
    type: 'lookup_denied',
    orderId,
    reason: tokenGiven ? 'token_mismatch' : 'missing_token',
  });
}

/** True when `token` has at most {@link MAX_LOOKUP_TOKEN_LENGTH} code points, as the schema counts them (a surrogate pair is one). */
function withinTokenLength(token: string): boolean {
  if (token.length <= MAX_LOOKUP_TOKEN_LENGTH) return true;
  // Each code point is at most two UTF-16 units: past twice the bound, the count is over it.
  if (token.length > MAX_LOOKUP_TOKEN_LENGTH * 2) return false;
  let codePoints = token.length;
  for (let index = 0; index < token.length - 1; index++) {
    const high = token.charCodeAt(index) & 0xfc00;
    if (high === 0xd800 && (token.charCodeAt(index + 1) & 0xfc00) === 0xdc00) {
      codePoints--;
      index++;
    }
  }
  return codePoints <= MAX_LOOKUP_TOKEN_LENGTH;
}
