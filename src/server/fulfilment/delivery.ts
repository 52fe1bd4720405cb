/**
 * Delivery: claims the settled orders whose delivery is due and starts each
 * one's delivery to the relay's target on its own (order-delivery.ts), so a
 * slow, hung or throwing target (a callback) holds up no other order. At
 * most `MAX_DELIVERIES_IN_FLIGHT` run at once in a process; a hung one keeps
 * its place only until its time limit, and each one that ends makes room for
 * the next due order at once.
 */
import type { RelayReporter } from '../events/relay-reporter.js';
import type { Claimed, SettledEntry } from '../journal/journal.js';
import { createAbandonment } from './abandonment.js';
import { type ClaimedLeases, claimLeases } from './delivery-lease.js';
import { deliverOrder, type OrderDeliveryContext } from './order-delivery.js';
import type { OrderRecords } from './order-records.js';
import type { FulfilmentSettings } from './watch-settings.js';

/** Settled orders claimed at once. */
export const DELIVERY_BATCH_SIZE = 10;
/** Deliveries running at once in one process at most. */
export const MAX_DELIVERIES_IN_FLIGHT = 100;
/** Claims at most per call of `deliverDue`. */
const MAX_BATCHES_PER_RUN = 100;

/** What delivery needs. */
export interface DeliveryDeps {
  readonly settings: FulfilmentSettings;
  readonly reporter: Pick<RelayReporter, 'emit'>;
  /** What the target receives: the order as the journal holds it. */
  readonly records: OrderRecords;
}

/** Where delivery stood at a moment: how many deliveries had started, and how many orders were delivered. */
export interface DeliveryMark {
  readonly started: number;
  readonly delivered: number;
}

/** The delivery of one relay process. */
export interface Delivery {
  /** Claims the due deliveries there is room for and starts each on its own; resolves once claimed. Never rejects. */
  deliverDue(): Promise<void>;
  /** Where delivery stands now. */
  mark(): DeliveryMark;
  /**
   * Resolves once every delivery started since `mark` has returned, failed or
   * run out of time, with how many orders were marked delivered since `mark`.
   */
  settledSince(mark: DeliveryMark): Promise<number>;
  /** Claims nothing more; resolves once every delivery in flight has ended (the caller bounds the wait). */
  drain(): Promise<void>;
  /** Gives up the deliveries still in flight: their outcome is ignored, their leases run out. */
  abandon(): void;
}

/** Creates the delivery of one relay process. */
export function createDelivery({ settings, reporter, records }: DeliveryDeps): Delivery {
  const abandonment = createAbandonment();
  const context: OrderDeliveryContext = { settings, reporter, abandonment, records };
  /** Deliveries running, by the order they started in. */
  const inFlight = new Map<number, Promise<boolean>>();
  const state = { stopping: false, reserved: 0, starved: false, started: 0, delivered: 0 };

  function start(entry: Claimed<SettledEntry>, leases: ClaimedLeases): void {
    state.started += 1;
    const number = state.started;
    const delivery = deliverOrder(context, entry, leases.lease(entry.idempotencyKey)).then((delivered) => {
      if (delivered) state.delivered += 1;
      return delivered;
    });
    inFlight.set(number, delivery);
    void delivery.finally(() => {
      inFlight.delete(number);
      // Room again for an order that was due while every place was taken.
      if (state.starved && !state.stopping) {
        state.starved = false;
        void deliverDue();
      }
    });
  }

  /** Claims up to one batch, within the room left; `undefined` when there is none or the journal failed. */
  async function claimBatch(): Promise<{ entries: Claimed<SettledEntry>[]; limit: number } | undefined> {
    const limit = Math.min(DELIVERY_BATCH_SIZE, MAX_DELIVERIES_IN_FLIGHT - inFlight.size - state.reserved);
    if (limit <= 0) {
      state.starved = true;
      return undefined;
    }
    state.reserved += limit;
    try {
      const entries = await settings.journal.claimUndelivered(settings.owner, {
        limit,
        leaseMs: settings.leaseMs,
      });
      return { entries, limit };
    } catch (error) {
      reporter.emit({ type: 'watcher_error', stage: 'claim', error });
      return undefined;
    } finally {
      state.reserved -= limit;
    }
  }

  async function deliverDue(): Promise<void> {
    for (let batch = 0; batch < MAX_BATCHES_PER_RUN && !state.stopping; batch++) {
      // The leases are timed from before the claim is asked for.
      const leases = claimLeases(settings);
      const claimed = await claimBatch();
      // Claimed as the relay began to close: left to their leases, which run out.
      if (claimed && !state.stopping) for (const entry of claimed.entries) start(entry, leases);
      leases.answered();
      if (!claimed || state.stopping || claimed.entries.length < claimed.limit) break;
    }
  }

  return {
    deliverDue,
    mark: () => ({ started: state.started, delivered: state.delivered }),
    async settledSince(mark) {
      const since = [...inFlight].filter(([number]) => number > mark.started).map(([, delivery]) => delivery);
      await Promise.all(since);
      return state.delivered - mark.delivered;
    },
    async drain() {
      state.stopping = true;
      await Promise.all(inFlight.values());
    },
    abandon: () => abandonment.giveUp(),
  };
}
