/**
 * When a webhook delivery is tried again: the schedule's step after the
 * attempt just made (immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h,
 * 20 h, 24 h: about three days), each wait spread by ±10 % so that
 * deliveries failed together do not come back together, or the receiver's
 * `Retry-After`; after the last step the delivery has failed.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** The wait before each attempt, the first one's included (none). */
export const WEBHOOK_SCHEDULE_MS: readonly number[] = [
  0,
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  14 * HOUR,
  20 * HOUR,
  24 * HOUR,
];

/** How far a wait is spread either way. */
export const WEBHOOK_JITTER = 0.1;

/**
 * The wait before the next attempt after `step` attempts of the schedule
 * (this one included), or `undefined` when the schedule is spent; a
 * `Retry-After` the receiver gave replaces the step's wait.
 */
export function nextWebhookWaitMs(
  step: number,
  retryAfterMs: number | null,
  random: () => number = Math.random,
): number | undefined {
  const base = WEBHOOK_SCHEDULE_MS[step];
  if (base === undefined) return undefined;
  if (retryAfterMs !== null) return retryAfterMs;
  return Math.round(base * (1 - WEBHOOK_JITTER + 2 * WEBHOOK_JITTER * random()));
}
