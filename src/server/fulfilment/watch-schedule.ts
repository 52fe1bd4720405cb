/**
 * When the watcher looks again (the service asks for every 2–5 s, bounded in total).
 * Pure functions of times, so the rhythm is tested without a clock.
 */

/** The timing the schedule reads. */
export interface WatchTiming {
  readonly intervalMs: number;
  readonly approvalWindowMs: number;
  readonly maxWatchMs: number;
}

/** Longest wait between two lookups of an order the payer has not settled for hours: an hour. */
export const MAX_BACKOFF_CHECK_MS = 60 * 60 * 1000;
/** Longest wait before a delivery that failed is tried again. */
export const MAX_DELIVERY_BACKOFF_MS = 10 * 60 * 1000;
/** Longest pause of the watcher while the service is down or rate limiting. */
export const MAX_SERVICE_BACKOFF_MS = 60_000;
/** Longest pause at all: a `Retry-After` is honoured up to five minutes. */
export const MAX_SERVICE_PAUSE_MS = MAX_SERVICE_BACKOFF_MS * 5;

/**
 * When to look up an order created at `createdAt` next: every interval while
 * the payer can approve; then half its age (an order 6 minutes old is looked
 * at again at 9, an hour old at an hour and a half), at most an hour apart,
 * never past the bound. Once the payer can no longer approve, a settlement is
 * rare and a shopper who checks again is answered by a browser lookup at
 * once: over 24 hours, a never-settling order costs 149 lookups (119 of them
 * in the 6-minute window at 3 s), where a tenth of its age, at most 10 minutes
 * apart, cost 283.
 */
export function nextCheckAt(timing: WatchTiming, createdAt: number, now: number): number {
  const age = now - createdAt;
  const wait =
    age < timing.approvalWindowMs
      ? timing.intervalMs
      : Math.min(MAX_BACKOFF_CHECK_MS, Math.max(timing.intervalMs, Math.round(age / 2)));
  return Math.min(now + wait, createdAt + timing.maxWatchMs);
}

/** Slack so the next pass, which starts one interval after this one began, finds the order due. */
export const PASS_SLACK_MS = 250;
/** Two lookups of one order are never closer than the spec's shortest interval, even in a long pass. */
export const MIN_RECHECK_MS = 2_000;

/**
 * When to look up an order looked up in a pass that began at `passStartedAt`:
 * on the pass's rhythm (one interval after it began, so the next pass finds it
 * due), but never sooner than 2 s after `now`, nor past the bound.
 */
export function nextCheckInPass(
  timing: WatchTiming,
  createdAt: number,
  passStartedAt: number,
  now: number,
): number {
  const onRhythm = nextCheckAt(timing, createdAt, passStartedAt) - PASS_SLACK_MS;
  return Math.max(onRhythm, Math.min(now + MIN_RECHECK_MS, createdAt + timing.maxWatchMs));
}

/** Whether the watcher gives up on an order created at `createdAt` (then `onExpired`). */
export function isPastBound(timing: WatchTiming, createdAt: number, now: number): boolean {
  return now - createdAt >= timing.maxWatchMs;
}

/** How long until a delivery that has failed `failures` times is tried again: 2 s, 4 s, 8 s… at most 10 minutes. */
export function deliveryRetryInMs(failures: number): number {
  return Math.min(MAX_DELIVERY_BACKOFF_MS, 2_000 * 2 ** Math.min(failures, 20));
}

/**
 * How long the watcher pauses after `failures` outages or `429`s in a row:
 * the interval doubled each time, at most a minute, and never less than the
 * service's own `Retry-After`.
 */
export function servicePauseMs(intervalMs: number, failures: number, retryAfterMs = 0): number {
  const doubled = Math.min(MAX_SERVICE_BACKOFF_MS, intervalMs * 2 ** Math.min(Math.max(failures - 1, 0), 20));
  return Math.max(doubled, Math.min(retryAfterMs, MAX_SERVICE_PAUSE_MS));
}
