/**
 * One order's delivery, on its own: handed to the relay's target (the
 * merchant's callback) within `callbackTimeoutMs` while this process holds
 * the order's lease; then the journal marks the order delivered, retried
 * while the lease holds, so that a blip of the database after the target
 * took the order never leads to a second delivery. A delivery that throws or
 * runs past its time counts as failed: the journal records it and the order
 * is due again after a backoff. Nothing here waits for any other order.
 */

import { timedWait } from '../../shared/answered-within.js';
import type { RelayReporter } from '../events/relay-reporter.js';
import type { Claimed, SettledEntry } from '../journal/journal.js';
import type { Abandonment } from './abandonment.js';
import { CustomerUnavailableError } from './delivery-customer.js';
import type { HeldLease } from './delivery-lease.js';
import type { FulfilledOrder } from './fulfilled-order.js';
import type { OrderRecords } from './order-records.js';
import type { DeliveryTarget } from './targets/delivery-target.js';
import { deliveryRetryInMs } from './watch-schedule.js';
import type { FulfilmentSettings, WatchTimers } from './watch-settings.js';

/** What one delivery needs. */
export interface OrderDeliveryContext {
  readonly settings: FulfilmentSettings;
  readonly reporter: Pick<RelayReporter, 'emit'>;
  /** Given when the relay closes and gives up on the deliveries still running: their outcome is ignored. */
  readonly abandonment: Abandonment;
  /** What the target receives: the order as the journal holds it. */
  readonly records: OrderRecords;
}

/** First wait before the journal is asked again to mark a delivery; doubled each time, at most a second. */
const MARK_RETRY_MS = 100;
const MAX_MARK_RETRY_MS = 1_000;

/** How a handing over to the target ended. */
type HandOver = { kind: 'delivered' } | { kind: 'failed'; error: unknown } | { kind: 'abandoned' };

/**
 * Delivers one claimed order under `lease`, the claim's; resolves `true` once
 * the journal has marked it delivered. Never rejects.
 */
export async function deliverOrder(
  context: OrderDeliveryContext,
  entry: Claimed<SettledEntry>,
  lease: HeldLease,
): Promise<boolean> {
  const { settings, reporter } = context;
  try {
    const { target } = settings;
    const receiver = target.receiverOf(entry.outcome);
    // A create that never got an answer has no order the merchant ever saw:
    // nothing to deliver (the watcher reported `order_expired` without an id).
    if (entry.orderId === null || receiver === undefined)
      return (await markDelivered(context, entry, lease)) === 'marked';
    const order = await fulfilledOrderOrPutOff(context, { ...entry, orderId: entry.orderId }, lease);
    if (order === undefined) return false;
    // Reading the order took the lease's length (a busy database, a stalled process): another
    // process may hold the order now, and a delivery here would deliver it twice.
    if (!lease.holds()) {
      reporter.emit({ type: 'delivery_lease_lost', orderId: order.id });
      return false;
    }
    const handOver = await deliverWithin(context, { target, receiver }, order);
    if (handOver.kind === 'abandoned') return false;
    if (handOver.kind === 'failed') {
      lease.release();
      await recordFailure(context, entry, order, handOver.error);
      return false;
    }
    const marked = await markDelivered(context, entry, lease);
    reporter.emit(
      marked === 'marked'
        ? { type: 'order_delivered', orderId: order.id, outcome: order.outcome, attempt: order.attempt }
        : { type: 'delivery_lease_lost', orderId: order.id },
    );
    return marked === 'marked';
  } catch (error) {
    // The journal failed (for a mark, past the lease): the lease runs out and the order is due again.
    if (!context.abandonment.given) reporter.emit({ type: 'watcher_error', stage: 'delivery', error });
    return false;
  } finally {
    lease.release();
  }
}

/**
 * What the target gets of `entry`; `undefined` when the service could not
 * be read for its customer: then the delivery is put off like a failed one.
 */
async function fulfilledOrderOrPutOff(
  context: OrderDeliveryContext,
  entry: Claimed<SettledEntry> & { orderId: string },
  lease: HeldLease,
): Promise<FulfilledOrder | undefined> {
  try {
    return await context.records.fulfilledOrder(entry);
  } catch (error) {
    if (!(error instanceof CustomerUnavailableError)) throw error;
    lease.release();
    const attempt = entry.deliveryAttempts + 1;
    await recordFailure(context, entry, { id: entry.orderId, outcome: entry.outcome, attempt }, error);
    return undefined;
  }
}

/** Hands `order` to `target`; a delivery still running after `callbackTimeoutMs` counts as failed. */
function deliverWithin(
  { settings, abandonment }: OrderDeliveryContext,
  { target, receiver }: { target: DeliveryTarget; receiver: string },
  order: FulfilledOrder,
): Promise<HandOver> {
  if (abandonment.given) return Promise.resolve({ kind: 'abandoned' });
  const limitMs = settings.callbackTimeoutMs;
  const late = () => new DOMException(`${receiver} did not return within ${limitMs} ms.`, 'TimeoutError');
  return timedWait<HandOver>(
    settings.deliveryTimers,
    limitMs,
    () => ({ kind: 'failed', error: late() }),
    (end) => {
      // Handed over on a later tick, so a target that throws at once fails like any other.
      Promise.resolve(order)
        .then((settled) => target.deliver(settled))
        .then(
          () => end(() => ({ kind: 'delivered' })),
          (error: unknown) => end(() => ({ kind: 'failed', error })),
        );
      return abandonment.listen(() => end(() => ({ kind: 'abandoned' })));
    },
  );
}

/** Tells `onEvent` and the journal that a delivery failed; the order is due again after its backoff. */
async function recordFailure(
  { settings, reporter }: OrderDeliveryContext,
  entry: SettledEntry,
  order: Pick<FulfilledOrder, 'id' | 'outcome' | 'attempt'>,
  error: unknown,
): Promise<void> {
  const retryInMs = deliveryRetryInMs(entry.deliveryAttempts);
  reporter.emit({
    type: 'delivery_failed',
    orderId: order.id,
    outcome: order.outcome,
    attempt: order.attempt,
    nextAttemptAt: settings.now() + retryInMs,
    error,
  });
  const name = error instanceof Error ? error.name : typeof error;
  await settings.journal.recordDeliveryFailure(entry.idempotencyKey, settings.owner, {
    retryInMs,
    error: name,
  });
}

/**
 * Marks the order delivered, asking again while the lease holds when the
 * journal does not answer: `lost` if another process holds the order now.
 */
async function markDelivered(
  { settings, abandonment }: OrderDeliveryContext,
  entry: SettledEntry,
  lease: HeldLease,
): Promise<'marked' | 'lost'> {
  const { journal, owner } = settings;
  for (let attempt = 0; ; attempt += 1) {
    try {
      if (await journal.markDelivered(entry.idempotencyKey, owner)) return 'marked';
      // An earlier try whose answer was lost may have been written after all.
      if (attempt === 0) return 'lost';
      const current = await journal.get(entry.idempotencyKey);
      return current?.phase === 'settled' && current.deliveredAt !== null ? 'marked' : 'lost';
    } catch (error) {
      if (!lease.holds() || abandonment.given) throw error;
      const waitMs = Math.min(MAX_MARK_RETRY_MS, MARK_RETRY_MS * 2 ** attempt);
      await pause(settings.deliveryTimers, waitMs, abandonment);
    }
  }
}

/** Waits `ms`, or less if the delivery is abandoned. */
function pause(timers: WatchTimers, ms: number, abandonment: Abandonment): Promise<void> {
  return timedWait(
    timers,
    ms,
    () => undefined,
    (end) => abandonment.listen(() => end(() => undefined)),
  );
}
