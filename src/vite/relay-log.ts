/**
 * What the dev server's terminal says about the relay: one line per order,
 * per change of a payment's status, per refusal and per failure (the
 * journal's, the watcher's and a callback's included), so a developer sees
 * why a checkout did not go through, or was never fulfilled, without adding a
 * logger. Never a key, a token, a name or a phone number.
 */
import type { CheckoutRelayEvent } from '../server/events/relay-events.js';
import { createStatusMemory } from '../server/events/status-memory.js';

/** Payments whose last printed status is remembered; a server left running for days stays bounded. */
const REMEMBERED_ORDERS = 500;

/** A line about `event` and whether it is a warning, or `undefined` for an event not worth a line. */
type RelayLogLine = { text: string; warning: boolean } | undefined;

/** Makes a formatter that prints a lookup only when the payment's status changed. */
export function createRelayLog(): (event: CheckoutRelayEvent) => RelayLogLine {
  const changed = createStatusMemory(REMEMBERED_ORDERS);
  return (event) => {
    switch (event.type) {
      case 'order_created':
        changed(event.orderId, event.paymentStatus);
        return info(
          `order ${event.orderId}${event.replayed ? ' replayed (same idempotency key)' : ''}: payment ${event.paymentStatus}`,
        );
      case 'order_looked_up':
        return changed(event.orderId, event.paymentStatus)
          ? info(`order ${event.orderId}: payment ${event.paymentStatus}`)
          : undefined;
      case 'request_rejected':
        return warn(`refused a ${event.route} request: ${event.status} ${event.code}: ${event.message}`);
      case 'rate_limited':
        return warn(`rate limited a ${event.route} for ${Math.ceil(event.retryAfterMs / 1000)} s`);
      case 'upstream_error':
        return warn(
          `the payments service failed on ${event.route}: ${event.error.status} ${event.error.code} (the browser got ${event.answeredStatus})`,
        );
      case 'lookup_denied':
        return warn(`refused a lookup of ${event.orderId}: ${event.reason.replace('_', ' ')}`);
      case 'price_cart_failed':
        return warn(
          `priceCart failed: ${event.reason}${event.error === undefined ? '' : ` ${describe(event.error)}`}`,
        );
      case 'internal_error':
        return warn(`internal error on ${event.route}: ${describe(event.error)}`);
      case 'journal_unavailable':
        return warn(`the order journal failed, so a create was refused (500): ${describe(event.error)}`);
      case 'watcher_error':
        return warn(`the order watcher failed to ${event.stage.replace('_', ' ')}: ${describe(event.error)}`);
      case 'delivery_failed':
        return warn(
          `your ${event.outcome} callback threw for order ${event.orderId} (try ${event.attempt}; called again later): ${describe(event.error)}`,
        );
      case 'warning':
        return warn(event.message);
      default:
        return undefined;
    }
  };
}

function info(text: string): RelayLogLine {
  return { text, warning: false };
}

function warn(text: string): RelayLogLine {
  return { text, warning: true };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : 'unknown';
}
