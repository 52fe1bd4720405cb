/**
 * What the relay's two handlers write to the journal, as they see it: the
 * intent before the service is called (no order can be missed, whenever the
 * process dies), the service's answer, a refusal for good, and a browser
 * lookup's final status. Without a journal every step does nothing, and the
 * relay is as before; fulfilment/journal-steps.ts takes the steps on a real
 * journal.
 */
import { provesNoOrder } from '../service-client/service-trouble.js';
import type { CreateRequestBody, JournalAttempt, OrderDetails, ServiceReading } from './journal.js';

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
  /** The steps of one create arriving now: all its waits on the journal share one allowance of 4 s. */
  forCreate(): RelayJournal;
  /** `read` (a checkout's, say), waited for within the same allowance; rejects with a JournalTooSlowError once it is spent. */
  within<T>(read: Promise<T>): Promise<T>;
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
  within: (read) => read,
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

/** What `attempt`, as the journal reads it, holds for a handler. */
export function heldAttempt({ entry, order, attemptDigest }: JournalAttempt): HeldAttempt {
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
