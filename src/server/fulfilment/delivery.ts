/**
 * Delivery: calls the merchant's `onPaid`, `onFailed` or `onExpired` for each
 * settled order, holding the order's lease (renewed while the callback runs)
 * so no other process calls it at the same time. Once the callback returns
 * the journal marks the order delivered, exactly once; if it throws, it is
 * tried again with backoff and `onEvent` hears of it. A crash between the
 * callback's return and the mark is the one way it can run twice.
 */

import type { RelayReporter } from '../events/relay-reporter.js';
import type { SettledEntry } from '../journal/journal.js';
import type { OrderRecords } from './order-records.js';
import { deliveryRetryAt } from './watch-schedule.js';
import type { FulfilmentSettings } from './watch-settings.js';

/** Settled orders claimed at once; their callbacks run in parallel. */
export const DELIVERY_BATCH_SIZE = 10;
/** Batches at most per pass. */
const MAX_BATCHES_PER_PASS = 100;

/** What delivery needs. */
export interface DeliveryDeps {
  readonly settings: FulfilmentSettings;
  readonly reporter: RelayReporter;
  /** What each callback receives: the order as the journal holds it. */
  readonly records: OrderRecords;
}

/** Runs one delivery pass: every settled order due, in batches; resolves to how many callbacks returned. */
export type DeliverOnce = () => Promise<number>;

/** Creates the delivery of one relay process. */
export function createDelivery({ settings, reporter, records }: DeliveryDeps): DeliverOnce {
  const { journal, owner } = settings;

  /** Renews the lease every third of its length while the callback runs; returns the stop function. */
  function holdLease(idempotencyKey: string): () => void {
    const timers = settings.timers;
    if (!timers) return () => undefined;
    let handle: unknown;
    let held = true;
    const renew = () => {
      handle = timers.setTimeout(() => {
        journal
          .renewLease(idempotencyKey, owner, settings.now() + settings.leaseMs)
          .catch(() => false)
          .then((renewed) => {
            if (held && renewed) renew();
          });
      }, settings.leaseMs / 3);
    };
    renew();
    return () => {
      held = false;
      timers.clearTimeout(handle);
    };
  }

  async function deliver(entry: SettledEntry): Promise<boolean> {
    const callback = settings.callbacks[entry.outcome];
    // A create that never got an answer has no order the merchant ever saw:
    // no callback (the watcher reported `order_expired` without an id).
    if (entry.orderId === null || !callback) {
      return journal.markDelivered(entry.idempotencyKey, owner, settings.now());
    }
    const order = await records.fulfilledOrder({ ...entry, orderId: entry.orderId });
    const release = holdLease(entry.idempotencyKey);
    try {
      await callback(order);
    } catch (error) {
      release();
      const nextAttemptAt = deliveryRetryAt(entry.deliveryAttempts, settings.now());
      const name = error instanceof Error ? error.name : typeof error;
      await journal.recordDeliveryFailure(entry.idempotencyKey, owner, {
        now: settings.now(),
        nextAttemptAt,
        error: name,
      });
      reporter.emit({
        type: 'delivery_failed',
        orderId: order.id,
        outcome: order.outcome,
        attempt: order.attempt,
        nextAttemptAt,
        error,
      });
      return false;
    }
    release();
    const marked = await journal.markDelivered(entry.idempotencyKey, owner, settings.now());
    reporter.emit(
      marked
        ? { type: 'order_delivered', orderId: order.id, outcome: order.outcome, attempt: order.attempt }
        : { type: 'delivery_lease_lost', orderId: order.id },
    );
    return marked;
  }

  async function deliverSafely(entry: SettledEntry): Promise<boolean> {
    try {
      return await deliver(entry);
    } catch (error) {
      // The journal failed: the lease runs out and the order is delivered later.
      reporter.emit({ type: 'watcher_error', stage: 'delivery', error });
      return false;
    }
  }

  return async function deliverOnce() {
    let delivered = 0;
    for (let batch = 0; batch < MAX_BATCHES_PER_PASS; batch++) {
      let entries: SettledEntry[];
      try {
        entries = await journal.claimUndelivered(owner, {
          now: settings.now(),
          limit: DELIVERY_BATCH_SIZE,
          leaseMs: settings.leaseMs,
        });
      } catch (error) {
        reporter.emit({ type: 'watcher_error', stage: 'claim', error });
        break;
      }
      const results = await Promise.all(entries.map(deliverSafely));
      delivered += results.filter(Boolean).length;
      if (entries.length < DELIVERY_BATCH_SIZE) break;
    }
    return delivered;
  };
}
