/**
 * The journal's time of one create: every wait the create makes on the
 * journal (a recall, its intent written and read, the service's answer
 * recorded) comes out of one allowance started when the create arrived, so
 * however many waits it makes, a shopper hears within 5 s.
 */

/** How long one create may wait on the journal in all, from its arrival: the service's call comes on top. */
export const CREATE_JOURNAL_LIMIT_MS = 4_000;

/** The time one create may still spend waiting on the journal. */
export interface CreateDeadline {
  /** The time left for one wait whose own limit is `capMs`: `0` or less once the allowance is spent. */
  leftMs(capMs: number): number;
}

/** No shared allowance: every wait has its own limit (a lookup's record, a step outside a create). */
export const EACH_WAIT_ITS_OWN: CreateDeadline = { leftMs: (capMs) => capMs };

/** Starts the journal's time of a create arriving now on `now`. */
export function createDeadline(now: () => number): CreateDeadline {
  const endsAt = now() + CREATE_JOURNAL_LIMIT_MS;
  // Never more than the cap, even when the clock was set back meanwhile.
  return { leftMs: (capMs) => Math.min(capMs, endsAt - now()) };
}
