/**
 * The handlers' journal steps (journal/relay-journal.ts) on the merchant's
 * journal: each wait is bounded (a create's waits share one allowance), each
 * write is tracked so the relay's `close()` waits for it, and an order a step
 * sees settle is delivered at once.
 */
import { answeredWithin } from '../../shared/answered-within.js';
import type { RelayReporter } from '../events/relay-reporter.js';
import { outcomeOfPaymentStatus } from '../journal/journal-row.js';
import {
  type AttemptIntent,
  heldAttempt,
  INTENT_ANSWER_LIMIT_MS,
  JournalTooSlowError,
  RECORD_ANSWER_LIMIT_MS,
  type RecordedIntent,
  type RelayJournal,
} from '../journal/relay-journal.js';
import { provesNoOrder } from '../service-client/service-trouble.js';
import { type CreateDeadline, createDeadline, EACH_WAIT_ITS_OWN } from './create-deadline.js';
import type { RelayFulfilment } from './fulfilment-runner.js';
import { nextCheckAt } from './watch-schedule.js';
import type { FulfilmentSettings } from './watch-settings.js';

/** The steps on `settings.requestJournal`, tracked by `runner` so `close()` waits for them. */
export function relayJournal(
  settings: FulfilmentSettings,
  runner: RelayFulfilment,
  reporter: RelayReporter,
): RelayJournal {
  return stepsWithin(settings, runner, reporter, EACH_WAIT_ITS_OWN);
}

/** How a step waits on the journal: `intime` for a create's intent or recall, `quietly` for a record. */
interface JournalWaits {
  /** `work`, or a {@link JournalTooSlowError} once the wait's time (or the create's) is spent. */
  intime<T>(work: Promise<T>): Promise<T>;
  /** Runs `write`, waiting for it at most the time left; a failure or a late write is reported, never thrown. */
  quietly(stage: 'record' | 'browser_lookup', write: () => Promise<unknown>): Promise<void>;
}

/** The waits of steps sharing `deadline`; every write is tracked, so close() still waits for one no step waits for. */
function journalWaits(
  { deliveryTimers }: FulfilmentSettings,
  runner: RelayFulfilment,
  reporter: RelayReporter,
  deadline: CreateDeadline,
): JournalWaits {
  const within = <T>(capMs: number, work: Promise<T>, late: () => Error): Promise<T> => {
    const tracked = runner.track(work);
    const leftMs = deadline.leftMs(capMs);
    if (leftMs > 0) return answeredWithin(deliveryTimers, leftMs, tracked, late);
    // Still runs (and lands or fails) on its own; the create does not wait for it.
    tracked.catch(() => undefined);
    return Promise.reject(late());
  };
  return {
    intime: (work) => within(INTENT_ANSWER_LIMIT_MS, work, () => new JournalTooSlowError()),
    async quietly(stage, write) {
      try {
        const late = () => new Error(`The journal did not record within ${RECORD_ANSWER_LIMIT_MS} ms.`);
        await within(RECORD_ANSWER_LIMIT_MS, write(), late);
      } catch (error) {
        reporter.emit({ type: 'watcher_error', stage, error });
      }
    },
  };
}

/** The steps whose waits share `deadline`; `forCreate()` gives a create steps of its own allowance. */
function stepsWithin(
  settings: FulfilmentSettings,
  runner: RelayFulfilment,
  reporter: RelayReporter,
  deadline: CreateDeadline,
): RelayJournal {
  // The shoppers' requests' connections: the watcher never takes them.
  const journal = settings.requestJournal;
  const { intime, quietly } = journalWaits(settings, runner, reporter, deadline);
  return {
    beforeCreate: (intent) => intime(recordAndRead(settings, intent)),
    created: (idempotencyKey, orderId, reading) =>
      quietly('record', async () => {
        const now = settings.now();
        const nextCheckInMs = nextCheckAt(settings, now, now) - now;
        await journal.recordCreated(idempotencyKey, { ...reading, orderId, nextCheckInMs });
        if (outcomeOfPaymentStatus(reading.paymentStatus) !== null) void runner.deliverNow();
      }),
    createFailed: (idempotencyKey, error) =>
      // A 422 says an order exists under the key: its intent stays, for the watcher.
      provesNoOrder(error)
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
      const attempt = await intime(journal.readAttempt({ idempotencyKey }));
      return attempt === undefined ? undefined : heldAttempt(attempt);
    },
    forCreate: () => stepsWithin(settings, runner, reporter, createDeadline(settings.now)),
    within: intime,
  };
}

/** How many times a create records its intent when the row it met went away meanwhile. */
const RECORD_TRIES = 3;

/**
 * Records `intent`, then reads what the journal holds under its key, or, when
 * another attempt holds the checkout's prompt to the number, that attempt
 * while it is open. A row that goes between the two (a create refused for
 * good, a prompt's order settled) is recorded over again.
 */
async function recordAndRead(
  settings: FulfilmentSettings,
  intent: AttemptIntent,
): Promise<RecordedIntent | undefined> {
  // A shopper's create: on the requests' connections, never the watcher's.
  const journal = settings.requestJournal;
  const { idempotencyKey, promptKey, ...kept } = intent;
  const prompt =
    promptKey === undefined ? undefined : { key: promptKey, openForMs: settings.approvalWindowMs };
  for (let tries = 0; tries < RECORD_TRIES; tries++) {
    await journal.recordIntent({
      ...kept,
      idempotencyKey,
      resendInMs: settings.createGraceMs,
      ...(prompt ? { prompt } : {}),
    });
    const own = await journal.readAttempt({ idempotencyKey });
    if (own) return { holds: 'key', attempt: heldAttempt(own) };
    const holder = prompt && (await journal.readAttempt({ promptKey: prompt.key }));
    const attempt = holder && holder.entry.phase !== 'settled' ? heldAttempt(holder) : undefined;
    if (attempt && attempt.kind !== 'spent') return { holds: 'prompt', attempt };
  }
  throw new Error('The journal kept neither this intent nor the one in its way.');
}
