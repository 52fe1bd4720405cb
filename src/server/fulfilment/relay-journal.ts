/**
 * What the relay's two handlers write to the journal: the intent before the
 * service is called (no order can be missed, whenever the process dies), the
 * service's answer, a refusal for good, and a browser lookup's final status.
 * Without a journal every step does nothing, and the relay is as before.
 */

import type { RelayReporter } from '../events/relay-reporter.js';
import type {
  CreateRequestBody,
  JournalEntry,
  JournalOrder,
  OrderDetails,
  ServiceReading,
} from '../journal/journal.js';
import { outcomeOfPaymentStatus } from '../journal/journal-row.js';
import type { RelayFulfilment } from './fulfilment-runner.js';
import { isRefusedForGood } from './service-trouble.js';
import { nextCheckAt } from './watch-schedule.js';
import type { FulfilmentSettings } from './watch-settings.js';

/**
 * What the journal holds of an earlier try under a key: its order with the
 * network it was paid from (`null` when journalled before networks were
 * kept), or the body of a create never answered; and what it was for.
 */
export type RecalledCreate = { details: OrderDetails } & (
  | { kind: 'created'; orderId: string; issuer: string | null }
  | { kind: 'unanswered'; createBody: CreateRequestBody }
);

/** What the relay read of an order at the service: its payment status, failure code and total. */
export type OrderReading = ServiceReading & { paymentStatus: string };

/** The journal steps of the create and lookup handlers. */
export interface RelayJournal {
  /** Records the create and its network (`issuer`) before the service is called; rejects when the journal cannot (refuse the create). */
  beforeCreate(
    idempotencyKey: string,
    createBody: Readonly<Record<string, unknown>>,
    details: OrderDetails,
    issuer: string,
  ): Promise<void>;
  /** Records the service's answer to a create. Never rejects: the watcher resends an unrecorded create. */
  created(idempotencyKey: string, orderId: string, reading: OrderReading): Promise<void>;
  /** Forgets a create the service refused for good; network failures and `5xx` stay for the watcher. */
  createFailed(idempotencyKey: string, error: unknown): Promise<void>;
  /** Settles an order a browser lookup saw final, and delivers it at once. Never rejects. */
  lookedUp(orderId: string, reading: OrderReading): Promise<void>;
  /** What an earlier try under the key left, or `undefined` (always, without a journal); rejects when the journal cannot be read. */
  recall(idempotencyKey: string): Promise<RecalledCreate | undefined>;
}

/** The steps when the relay has no journal. */
export const NO_JOURNAL: RelayJournal = {
  beforeCreate: async () => undefined,
  created: async () => undefined,
  createFailed: async () => undefined,
  lookedUp: async () => undefined,
  recall: async () => undefined,
};

/** The steps on `settings.journal`, tracked by `runner` so `close()` waits for them. */
export function relayJournal(
  settings: FulfilmentSettings,
  runner: RelayFulfilment,
  reporter: RelayReporter,
): RelayJournal {
  const { journal } = settings;
  const quietly = async (stage: 'record' | 'browser_lookup', write: () => Promise<unknown>) => {
    try {
      await runner.track(write());
    } catch (error) {
      reporter.emit({ type: 'watcher_error', stage, error });
    }
  };
  return {
    beforeCreate: (idempotencyKey, createBody, details, issuer) => {
      const resendInMs = settings.createGraceMs;
      return runner.track(journal.recordIntent({ idempotencyKey, createBody, resendInMs, details, issuer }));
    },
    created: (idempotencyKey, orderId, reading) =>
      quietly('record', async () => {
        const now = settings.now();
        const nextCheckInMs = nextCheckAt(settings, now, now) - now;
        await journal.recordCreated(idempotencyKey, { ...reading, orderId, nextCheckInMs });
        if (outcomeOfPaymentStatus(reading.paymentStatus) !== null) void runner.deliverNow();
      }),
    createFailed: (idempotencyKey, error) =>
      isRefusedForGood(error)
        ? quietly('record', () => journal.discardIntent(idempotencyKey))
        : Promise.resolve(),
    lookedUp: (orderId, { paymentStatus, ...reading }) =>
      quietly('browser_lookup', async () => {
        const outcome = outcomeOfPaymentStatus(paymentStatus);
        if (outcome === null) return;
        // This process read the order (its customer in hand): it delivers first.
        const { owner } = settings;
        if (await journal.settleFromBrowserLookup(orderId, paymentStatus, reading, owner)) {
          reporter.emit({ type: 'order_settled', orderId, outcome, paymentStatus, source: 'browser' });
        } else if (outcome === 'paid' && (await journal.recordLatePayment(orderId, reading, owner))) {
          // Paid after the watcher gave up on it: onPaid is owed after all.
          reporter.emit({ type: 'order_paid_late', orderId, source: 'browser' });
        } else return;
        void runner.deliverNow();
      }),
    recall: async (idempotencyKey) => {
      const entry = await runner.track(journal.get(idempotencyKey));
      const order = entry && (await runner.track(journal.readOrder({ idempotencyKey })));
      return recalled(entry, order);
    },
  };
}

function recalled(
  entry: JournalEntry | undefined,
  order: JournalOrder | undefined,
): RecalledCreate | undefined {
  if (entry === undefined || order === undefined) return undefined;
  const { reference, metadata, lineItems, amount } = order;
  const details = { reference, metadata, lineItems, amount };
  if (entry.phase === 'creating') return { kind: 'unanswered', createBody: entry.createBody, details };
  // A create the watcher gave up on unanswered keeps neither an order nor its body: nothing to replay.
  if (entry.orderId === null) return undefined;
  return { kind: 'created', orderId: entry.orderId, issuer: order.issuer, details };
}
