/**
 * One console line per relay event worth a demo's terminal: orders, outcomes,
 * refusals and upstream failures. Lookups print only when a payment's status
 * changes, not on every poll. Never prints a key, a token or a phone number.
 */

import { createStatusMemory } from '../../src/server/events/status-memory.js';
import type { CheckoutRelayEvent } from '../../src/server/index.js';

/** Orders whose last status the log remembers; a demo left running for days stays bounded. */
const REMEMBERED_ORDERS = 1000;

/** Makes a formatter that remembers the last status of the orders it printed most recently. */
export function createRelayLogFormatter(): (event: CheckoutRelayEvent) => string | undefined {
  const changed = createStatusMemory(REMEMBERED_ORDERS);
  return (event) => {
    switch (event.type) {
      case 'order_created': {
        // The service says so (`Idempotent-Replayed`): right after a restart and for the relay's own retries too.
        const { replayed } = event;
        changed(event.orderId, event.paymentStatus);
        const total = event.lineItems.reduce(
          (sum, item) => sum + item.product.price.value * item.product.quantity,
          0,
        );
        const currency = event.lineItems[0]?.product.price.currency.toUpperCase() ?? '';
        return `order ${event.orderId} ${replayed ? 'replayed (same idempotency key)' : 'created'}: ${currency} ${(total / 100).toFixed(2)}, payment ${event.paymentStatus}`;
      }
      case 'order_looked_up': {
        if (!changed(event.orderId, event.paymentStatus)) return undefined;
        return `order ${event.orderId}: payment ${event.paymentStatus}`;
      }
      case 'request_rejected':
        return `refused a ${event.route} request: ${event.status} ${event.code}${event.param ? ` (${event.param})` : ''}`;
      case 'lookup_denied':
        return `refused a lookup of ${event.orderId}: ${event.reason}`;
      case 'rate_limited':
        return `rate limited ${event.clientKey} on ${event.route} for ${Math.ceil(event.retryAfterMs / 1000)} s`;
      case 'upstream_error':
        return `the payments service failed on ${event.route}: ${event.error.status} ${event.error.code} (the browser got ${event.answeredStatus})`;
      case 'price_cart_failed':
        return `priceCart failed: ${event.reason}`;
      case 'internal_error':
        return `internal error on ${event.route}: ${event.error instanceof Error ? event.error.message : 'unknown'}`;
      case 'request_aborted':
        return `the browser went away during a ${event.route}`;
      case 'warning':
        return `warning: ${event.message}`;
      case 'order_settled':
        return `order ${event.orderId} settled ${event.outcome}, seen by ${event.source === 'watcher' ? "the server's watcher" : "the shopper's browser"}`;
      case 'order_paid_late':
        return `order ${event.orderId} was paid after it expired, found by ${event.source === 'sweep' ? "the server's sweep" : "the shopper's browser"}: onPaid is owed`;
      case 'order_unknown_to_service':
        return `the payments service does not know order ${event.orderId}`;
      case 'delivery_failed':
        return `the server's callback for ${event.orderId} threw; again in ${Math.ceil((event.nextAttemptAt - Date.now()) / 1000)} s`;
      case 'watcher_paused':
        return `the payments service is ${event.reason === 'rate_limited' ? 'rate limiting' : 'unreachable'}: the watcher pauses ${Math.round(event.pauseMs / 1000)} s`;
      case 'watcher_resumed':
        return 'the payments service answers again: the watcher resumes';
      case 'journal_unavailable':
      case 'watcher_error':
        return `the order journal or watcher failed: ${event.error instanceof Error ? event.error.message : 'unknown'}`;
      default:
        return undefined;
    }
  };
}
