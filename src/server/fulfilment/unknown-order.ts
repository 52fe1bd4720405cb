/**
 * An order the service answers `404` for, in its own error shape: the
 * journal watches it, but the service does not know it (a test sandbox
 * restarted and forgot it, a journal pointed at another account's service, a
 * key changed). Waiting would leave the merchant an hour between lookups in
 * silence, then a day until `onExpired`. Instead `onEvent` hears of it at the
 * first such answer, and the order settles as failed with
 * `failureCode: 'unknown_order'` (and `onFailed` is called) only on a second
 * one, at least one watch interval after the first and once the create grace
 * has passed since the order was recorded (a service that has just answered
 * a create may take a moment to find the order by id). One stray answer
 * settles nothing; a payment found later still reaches `onPaid`.
 */
import type { RelayReporter } from '../events/relay-reporter.js';
import { type Claimed, UNKNOWN_ORDER_FAILURE, type WatchingEntry } from '../journal/journal.js';
import type { FulfilmentSettings } from './watch-settings.js';

/**
 * The payment status an unknown order settles with: the service read none,
 * and a final status is what settles an order; `failureCode` says why.
 */
const UNKNOWN_ORDER_PAYMENT_STATUS = 'failed';
/** Orders held as first found unknown at most: past it the oldest is forgotten (and needs two answers again). */
const MAX_FIRST_UNKNOWN = 100_000;

/**
 * When the service first answered `404` for each order still watched, on the
 * journal's clock, by idempotency key: one watcher process's memory.
 */
export type FirstUnknown = Map<string, number>;

/** Forgets `entry`'s first `404`: the service has answered it again. */
export function knownAgain(firstUnknown: FirstUnknown, entry: WatchingEntry): void {
  firstUnknown.delete(entry.idempotencyKey);
}

/** Reports `entry`'s order unknown to the service; settles it failed on a second `404` past the create grace, else looks again then. Whether it settled. */
export async function settleUnknownOrder(
  settings: FulfilmentSettings,
  reporter: Pick<RelayReporter, 'emit'>,
  firstUnknown: FirstUnknown,
  entry: Claimed<WatchingEntry>,
): Promise<boolean> {
  const { journal, owner } = settings;
  const firstAt = firstUnknown.get(entry.idempotencyKey);
  if (firstAt === undefined) {
    reporter.emit({ type: 'order_unknown_to_service', orderId: entry.orderId });
    remember(firstUnknown, entry);
  }
  const since = firstAt ?? entry.claimedAt;
  // The order's age on the journal's clock, as every age the watcher judges.
  const graceLeftMs = settings.createGraceMs - (entry.claimedAt - entry.createdAt);
  const secondInMs = settings.intervalMs - (entry.claimedAt - since);
  const waitMs = Math.max(graceLeftMs, secondInMs);
  if (firstAt === undefined || waitMs > 0) {
    await journal.deferCheck(entry.idempotencyKey, owner, Math.max(waitMs, 1));
    return false;
  }
  firstUnknown.delete(entry.idempotencyKey);
  return journal.recordChecked(entry.idempotencyKey, owner, {
    paymentStatus: UNKNOWN_ORDER_PAYMENT_STATUS,
    failureCode: UNKNOWN_ORDER_FAILURE,
    nextCheckInMs: 0,
  });
}

function remember(firstUnknown: FirstUnknown, entry: Claimed<WatchingEntry>): void {
  if (firstUnknown.size >= MAX_FIRST_UNKNOWN) {
    const oldest = firstUnknown.keys().next().value;
    if (oldest !== undefined) firstUnknown.delete(oldest);
  }
  firstUnknown.set(entry.idempotencyKey, entry.claimedAt);
}
