/**
 * serve's log: one JSON object per line on stdout, `{"time","level","event",…}`,
 * for a log shipper to read. What the relay tells `onEvent` is written
 * through an allowlist of fields: ids, statuses, routes and codes. Never a
 * shopper's name or number, a key, a lookup token or a client secret, and of
 * an error only its name and code (a driver's message may quote a value).
 */
import type { CheckoutRelayEvent } from '../server/events/relay-events.js';

/** How much a line matters; `debug` lines (one per lookup) are not written. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** The log serve writes. */
export interface ServeLog {
  /** Writes one line: `event` and `fields`, which the caller vouches hold nothing personal. */
  write(level: LogLevel, event: string, fields?: Readonly<Record<string, unknown>>): void;
  /** The relay's `onEvent`: each event through the allowlist. */
  relayEvent(event: CheckoutRelayEvent): void;
}

/** The fields of the relay's events that may be logged: none of them carries a person or a secret. */
const LOGGED_FIELDS = [
  'route',
  'status',
  'code',
  'param',
  'orderId',
  'orderStatus',
  'paymentStatus',
  'replayed',
  'source',
  'amount',
  'reference',
  'reason',
  'field',
  'retryAfterMs',
  'answeredStatus',
  'outcome',
  'attempt',
  'nextAttemptAt',
  'pauseMs',
  'failures',
  'stage',
  'eventId',
  'endpoint',
  'state',
] as const;

const LEVELS: Readonly<Partial<Record<CheckoutRelayEvent['type'], LogLevel>>> = {
  order_looked_up: 'debug',
  warning: 'warn',
  rate_limited: 'warn',
  upstream_error: 'warn',
  lookup_denied: 'warn',
  watcher_paused: 'warn',
  delivery_failed: 'warn',
  delivery_lease_lost: 'warn',
  order_unknown_to_service: 'warn',
  internal_error: 'error',
  watcher_error: 'error',
  journal_unavailable: 'error',
  price_cart_failed: 'error',
  webhook_attempt_failed: 'warn',
};

/** An error as the log shows it: its name, and its code and status when it has them. */
export function errorFields(error: unknown): Record<string, unknown> {
  if (typeof error !== 'object' || error === null) return { name: typeof error };
  const { name, code, status } = error as { name?: unknown; code?: unknown; status?: unknown };
  return {
    name: typeof name === 'string' ? name : 'Error',
    ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    ...(typeof status === 'number' ? { status } : {}),
  };
}

/** The loggable fields of a relay event. */
function relayEventFields(event: CheckoutRelayEvent): Record<string, unknown> {
  const source = event as unknown as Record<string, unknown>;
  const fields: Record<string, unknown> = {};
  for (const name of LOGGED_FIELDS) if (source[name] !== undefined) fields[name] = source[name];
  // The relay's own warnings are fixed sentences; other events' messages may quote a request.
  if (event.type === 'warning') fields.message = event.message;
  // A webhook attempt's error is the relay's own short text (a time-out, a refused target); any other is an Error.
  if ('error' in event && event.error !== undefined && event.error !== null) {
    fields.error = typeof event.error === 'string' ? event.error : errorFields(event.error);
  }
  return fields;
}

/** A log writing lines with `writeLine` (stdout by default), stamped by `now`. */
export function createServeLog(
  writeLine: (line: string) => void = (line) => process.stdout.write(line),
  now: () => number = Date.now,
): ServeLog {
  const write: ServeLog['write'] = (level, event, fields = {}) => {
    if (level === 'debug') return;
    const line = { time: new Date(now()).toISOString(), level, event, ...fields };
    writeLine(`${JSON.stringify(line)}\n`);
  };
  return {
    write,
    relayEvent: (event) => {
      const level = LEVELS[event.type] ?? 'info';
      // A lookup's event comes with every poll of every shopper: nothing is built for a line not written.
      if (level !== 'debug') write(level, event.type, relayEventFields(event));
    },
  };
}
