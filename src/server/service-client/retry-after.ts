/**
 * Reads the service's `Retry-After` (RFC 9110 §10.2.3): the server side
 * takes both forms, since a service or a proxy in front of it may send a date.
 */

/**
 * Milliseconds a `Retry-After` value asks for: delta-seconds or an HTTP date.
 * Undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
