/**
 * An order the service answers `404` for: the journal watches it, but the
 * service does not know it (a test sandbox restarted and forgot it, a
 * journal pointed at another account's service, a key changed). Waiting
 * would leave the merchant an hour between lookups in silence, then a day
 * until `onExpired`. Instead `onEvent` hears of it at once, and once the
 * create grace has passed since the order was recorded (a service that has
 * just answered a create may take a moment to find the order by id), the
 * order settles as failed with `failureCode: 'unknown_order'`, and `onFailed`
 * is called: no payment can come for an order the service does not hold.
 */
import type { RelayReporter } from '../events/relay-reporter.js';
import type { Claimed, WatchingEntry } from '../journal/journal.js';
import type { FulfilmentSettings } from './watch-settings.js';

/** The failure code of an order the service does not know. */
export const UNKNOWN_ORDER_FAILURE = 'unknown_order';
/**
 * The payment status an unknown order settles with: the service read none,
 * and a final status is what settles an order; `failureCode` says why.
 */
const UNKNOWN_ORDER_PAYMENT_STATUS = 'failed';

/** Reports `entry`'s order unknown to the service; settles it failed past the create grace, else looks again then. Whether it settled. */
export async function settleUnknownOrder(
  settings: FulfilmentSettings,
  reporter: Pick<RelayReporter, 'emit'>,
  entry: Claimed<WatchingEntry>,
): Promise<boolean> {
  const { journal, owner } = settings;
  reporter.emit({ type: 'order_unknown_to_service', orderId: entry.orderId });
  // The order's age on the journal's clock, as every age the watcher judges.
  const graceLeftMs = settings.createGraceMs - (entry.claimedAt - entry.createdAt);
  if (graceLeftMs > 0) {
    await journal.deferCheck(entry.idempotencyKey, owner, graceLeftMs);
    return false;
  }
  return journal.recordChecked(entry.idempotencyKey, owner, {
    paymentStatus: UNKNOWN_ORDER_PAYMENT_STATUS,
    failureCode: UNKNOWN_ORDER_FAILURE,
    nextCheckInMs: 0,
  });
}
