/**
 * How a lookup leans on the journal without ever waiting on it for long: a
 * journal that does not answer within `JOURNAL_ANSWER_LIMIT_MS` (a database
 * host frozen, a network cut without a reset) counts as failed, and the
 * lookup calls the service as without one; and a claimed lookup whose call
 * is slow keeps its claim while the call lasts, so no other process of the
 * fleet calls the service for the same order meanwhile.
 */
import { answeredWithin } from '../../shared/answered-within.js';
import type { Clock } from '../../shared/clock.js';
import { renewEvery } from '../journal/lease-renewer.js';
import type { LookupJournal } from '../journal/lookup-journal.js';

/** How long a lookup waits for the journal before it goes to the service as without one. */
export const JOURNAL_ANSWER_LIMIT_MS = 1_500;
/** How often a claimed lookup still in flight renews its claim: well within the 2 s a claim holds. */
export const CLAIM_RENEWAL_MS = 1_250;

/** `work`, or a rejection once `JOURNAL_ANSWER_LIMIT_MS` has passed on `clock` without an answer. */
export function withinJournalLimit<T>(clock: Clock, work: Promise<T>): Promise<T> {
  return answeredWithin(clock, JOURNAL_ANSWER_LIMIT_MS, work, late);
}

/** The time one browser lookup may still spend waiting on the journal: `JOURNAL_ANSWER_LIMIT_MS` in all, however many waits. */
export interface JournalDeadline {
  /** `work`, or a rejection once the lookup's time for the journal has run out (at once if it already has). */
  within<T>(work: Promise<T>): Promise<T>;
}

/** Starts the journal's time of a lookup asked now on `clock`. */
export function journalDeadline(clock: Clock): JournalDeadline {
  const endsAt = clock.now() + JOURNAL_ANSWER_LIMIT_MS;
  return {
    within(work) {
      // Never more than the whole allowance, even when the clock was set back meanwhile.
      const leftMs = Math.min(JOURNAL_ANSWER_LIMIT_MS, endsAt - clock.now());
      if (leftMs > 0) return answeredWithin(clock, leftMs, work, late);
      // Still runs (and fails or lands) on its own; the lookup does not wait for it.
      work.catch(() => undefined);
      return Promise.reject(late());
    },
  };
}

const late = () => new Error(`The journal did not answer within ${JOURNAL_ANSWER_LIMIT_MS} ms.`);

/**
 * Runs `call` while renewing the claim on `orderId`'s lookup every
 * `CLAIM_RENEWAL_MS`; a renewal that fails is `onFailure`'s, and the claim
 * then runs out as if the process had died.
 */
export async function whileLookupClaimed<T>(
  clock: Clock,
  journal: Pick<LookupJournal, 'holdLookupClaim'>,
  orderId: string,
  onFailure: (error: unknown) => void,
  call: () => Promise<T>,
): Promise<T> {
  const renewer = renewEvery(clock, CLAIM_RENEWAL_MS, () => {
    withinJournalLimit(clock, journal.holdLookupClaim(orderId)).catch(onFailure);
    return true;
  });
  try {
    return await call();
  } finally {
    renewer.stop();
  }
}
