/**
 * A receiver's `Retry-After` (RFC 9110: delay-seconds or an HTTP-date) as
 * the wait before the next attempt, held between one second and one day so
 * neither a `0` nor a far date upsets the schedule.
 */

/** Shortest wait a `Retry-After` may set: one second. */
export const MIN_RETRY_AFTER_MS = 1000;

/** Longest wait a `Retry-After` may set: one day. */
export const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

/** The wait `value` asks for, in ms, clamped to 1 s..24 h; null when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now: number): number | null {
  const text = value?.trim();
  if (!text) return null;
  let waitMs: number;
  if (/^\d+$/.test(text)) {
    waitMs = Number(text) * 1000;
  } else {
    // An HTTP-date names its weekday and zone; Date.parse takes the IMF, RFC 850 and asctime forms.
    if (!/[a-z]{3}/i.test(text)) return null;
    const at = Date.parse(text);
    if (Number.isNaN(at)) return null;
    waitMs = at - now;
  }
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(MIN_RETRY_AFTER_MS, waitMs));
}
