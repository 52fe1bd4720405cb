/**
 * What the relay's two handlers write to the journal: the intent before the
 * service is called (no order can be missed, whenever the process dies), the
 * service's answer, a refusal for good, and a browser lookup's final status.
 * Without a journal every step does nothing, and the relay is as before.
 */

import { answeredWithin } from '../../shared/answered-within.js';
import type { RelayReporter } from '../events/relay-reporter.js';
import type { CreateRequestBody, JournalAttempt, OrderDetails, ServiceReading } from '../journal/journal.js';
import { outcomeOfPaymentStatus } from '../journal/journal-row.js';
import {
  CREATE_JOURNAL_LIMIT_MS,
  type CreateDeadline,
  createDeadline,
  EACH_WAIT_ITS_OWN,
} from './create-deadline.js';
import type { RelayFulfilment } from './fulfilment-runner.js';
import { provesNoOrder } from './service-trouble.js';
import { nextCheckAt } from './watch-schedule.js';
import type { FulfilmentSettings } from './watch-settings.js';

/**
 * What the journal holds of an attempt: its order with the network it was
 * paid from (`null` when journalled before networks were kept), the body of
 * a create never answered with the key the service knows it by, or nothing
 * live (`spent`: a create the watcher gave up on unanswered, its key used
 * up); what it was for, the key it is filed under, and the keyed digest of
 * what it is (`null` when journalled before digests were kept).
 */
export type HeldAttempt = { idempotencyKey: string; details: OrderDetails; attemptDigest: string | null } & (
  | { kind: 'created'; orderId: string; issuer: string | null }
  | { kind: 'unanswered'; createBody: CreateRequestBody; serviceKey: string }
  | { kind: 'spent' }
);

/** An attempt the journal still holds something to answer or send for: its order, or its unanswered create. */
export type LiveAttempt = Exclude<HeldAttempt, { kind: 'spent' }>;

/**
 * What recording an intent found: the attempt under its key (this create's,
 * or an earlier try's), or another attempt of the same checkout whose prompt
 * to the same number is still open.
 */
export type RecordedIntent =
  | { holds: 'key'; attempt: HeldAttempt }
  | { holds: 'prompt'; attempt: LiveAttempt };

/** A create's intent as the relay records it before calling the service. */
export interface AttemptIntent {
  /** The scoped shopper key the journal files the attempt under. */
  idempotencyKey: string;
  createBody: CreateRequestBody;
  details: OrderDetails;
  /** The mobile-money network (issuer code). */
  issuer: string;
  /** The keyed digest of what identifies the attempt. */
  attemptDigest: string;
  /** The key the service is called with. */
  serviceKey: string;
  /** The keyed digest of the checkout's reference and the number; absent when the merchant gave no reference. */
  promptKey?: string;
}

/** What the relay read of an order at the service: its payment status, failure code and total. */
export type OrderReading = ServiceReading & { paymentStatus: string };

/** The journal steps of the create and lookup handlers. */
export interface RelayJournal {
  /**
   * Records the intent before the service is called, and answers what the
   * journal then holds (`undefined`: nothing to follow, as without a journal);
   * rejects when the journal cannot (refuse the create).
   */
  beforeCreate(intent: AttemptIntent): Promise<RecordedIntent | undefined>;
  /** Records the service's answer to a create. Never rejects: the watcher resends an unrecorded create. */
  created(idempotencyKey: string, orderId: string, reading: OrderReading): Promise<void>;
  /** Forgets a create whose refusal proves no order exists (`400`, `401`, `403`); anything else stays for the watcher. */
  createFailed(idempotencyKey: string, error: unknown): Promise<void>;
  /** Settles an order a browser lookup saw final, and delivers it at once. Never rejects. */
  lookedUp(orderId: string, reading: OrderReading): Promise<void>;
  /** What an earlier try under the key left, or `undefined` (always, without a journal); rejects when the journal cannot be read. */
  recall(idempotencyKey: string): Promise<HeldAttempt | undefined>;
  /** The steps of one create arriving now: all its waits on the journal share one allowance ({@link CREATE_JOURNAL_LIMIT_MS}). */
  forCreate(): RelayJournal;
}

/**
 * How long a create waits for the journal to record (or read) its intent:
 * past it the create answers `503`, the service not called, so a shopper
 * hears within 5 s whatever the journal does.
 */
export const INTENT_ANSWER_LIMIT_MS = 4_000;

/** How long a create or a lookup waits for the journal to record what the service said: the watcher catches up on a write that comes late. */
export const RECORD_ANSWER_LIMIT_MS = 1_250;

/** The journal did not answer a create's write or read within {@link INTENT_ANSWER_LIMIT_MS}. */
export class JournalTooSlowError extends Error {
  constructor() {
    super(`The journal did not answer within ${INTENT_ANSWER_LIMIT_MS} ms.`);
    this.name = 'JournalTooSlowError';
  }
}

/** The steps when the relay has no journal. */
export const NO_JOURNAL: RelayJournal = {
  beforeCreate: async () => undefined,
  created: async () => undefined,
  createFailed: async () => undefined,
  lookedUp: async () => undefined,
  recall: async () => undefined,
  forCreate: () => NO_JOURNAL,
};

/** How many attempts a relay without a journal remembers: enough for every retry in flight, bounded whatever the traffic. */
export const REMEMBERED_ATTEMPTS = 10_000;

/**
 * The steps of a relay without a journal: nothing is recorded, but the
 * digests of the latest attempts are remembered in this process, so the same
 * key with another cart, name, number or network is still the `422` of a
 * reused key here (the service's key is bound to the digest, so the service
 * itself would take it for a new attempt). Across processes and restarts,
 * such a create is another order, charged its own cart.
 */
export function rememberedAttempts(limit = REMEMBERED_ATTEMPTS): RelayJournal {
  const digests = new Map<string, string>();
  const steps: RelayJournal = {
    ...NO_JOURNAL,
    // Nothing to wait on: every create shares the same memory.
    forCreate: () => steps,
    beforeCreate: async (intent) => {
      const { idempotencyKey, attemptDigest, createBody, details, serviceKey } = intent;
      const remembered = digests.get(idempotencyKey);
      if (remembered !== undefined && remembered !== attemptDigest) {
        // Only its digest is read: another attempt under the key is refused before anything is sent.
        const attempt = { idempotencyKey, details, attemptDigest: remembered, createBody, serviceKey };
        return { holds: 'key', attempt: { ...attempt, kind: 'unanswered' } };
      }
      digests.delete(idempotencyKey);
      digests.set(idempotencyKey, attemptDigest);
      // A Map keeps insertion order: the first key is the least recently used.
      if (digests.size > limit) digests.delete(digests.keys().next().value as string);
      return undefined;
    },
    createFailed: async (idempotencyKey, error) => {
      // Refused for good, no order exists: the key may carry a corrected create.
      if (provesNoOrder(error)) digests.delete(idempotencyKey);
    },
  };
  return steps;
}

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

function heldAttempt({ entry, order, attemptDigest }: JournalAttempt): HeldAttempt {
  const { reference, metadata, lineItems, amount } = order;
  const details = { reference, metadata, lineItems, amount };
  const { idempotencyKey } = entry;
  const common = { idempotencyKey, details, attemptDigest };
  if (entry.phase === 'creating') {
    const serviceKey = entry.serviceKey ?? idempotencyKey;
    return { ...common, kind: 'unanswered', createBody: entry.createBody, serviceKey };
  }
  // A create the watcher gave up on unanswered keeps neither an order nor its body: the key is spent.
  if (entry.orderId === null) return { ...common, kind: 'spent' };
  return { ...common, kind: 'created', orderId: entry.orderId, issuer: order.issuer };
}
