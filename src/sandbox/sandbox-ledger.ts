/**
 * What a sandbox holds, in one place its endpoints share: orders, customers,
 * idempotency records, keys, the clock and the simulated timings.
 */
import { type Clock, systemClock } from '../shared/clock.js';
import { IDEMPOTENCY_KEY_RETENTION_MS } from '../shared/service-contract.js';
import { KeyRegistry } from './authentication.js';
import { CustomerDirectory } from './customer-directory.js';
import { IdempotencyStore } from './idempotency-store.js';
import { OrderStore } from './order-store.js';
import { RequestLog } from './request-log.js';

/** Options of a sandbox's ledger (the sandbox's own, minus its base path). */
export interface SandboxLedgerOptions {
  /** The simulated payer answers this long after the payment starts. Default 6000 ms. */
  approveAfterMs?: number;
  /** Simulated work time of a write, during which its idempotency key is in flight. Default 0. */
  processingDelayMs?: number;
  /**
   * The sandbox's time and timers (default the system's): payments settle
   * and keys expire by its `now`, and the simulated work of a write waits on
   * its `setTimeout`. A test moves time with its own.
   */
  clock?: Clock;
  /** Orders kept; past it the oldest goes first. Default 100,000. */
  maxOrders?: number;
  /** Idempotency records kept (each also expires after 24 h); past it the oldest goes first. Default 100,000. */
  maxIdempotencyRecords?: number;
}

/** The state every endpoint of one sandbox reads and writes. */
export interface SandboxLedger {
  readonly orders: OrderStore;
  readonly customers: CustomerDirectory;
  readonly idempotency: IdempotencyStore;
  readonly keys: KeyRegistry;
  /** What reached the service endpoints, for the control surface's read-only log. */
  readonly requests: RequestLog;
  readonly clock: Clock;
  readonly approveAfterMs: number;
  readonly processingDelayMs: number;
}

const DEFAULT_APPROVE_AFTER_MS = 6000;
const DEFAULT_MAX_ORDERS = 100_000;
const DEFAULT_MAX_IDEMPOTENCY_RECORDS = 100_000;

/** A new, empty ledger; throws a RangeError for a negative delay or a bad cap, a TypeError for a bad clock. */
export function createLedger(options: SandboxLedgerOptions): SandboxLedger {
  const clock = checkedClock(options);
  const maxOrders = options.maxOrders ?? DEFAULT_MAX_ORDERS;
  return Object.freeze({
    orders: new OrderStore(maxOrders),
    customers: new CustomerDirectory(maxOrders),
    idempotency: new IdempotencyStore(
      options.maxIdempotencyRecords ?? DEFAULT_MAX_IDEMPOTENCY_RECORDS,
      IDEMPOTENCY_KEY_RETENTION_MS,
    ),
    keys: new KeyRegistry(() => clock.now()),
    requests: new RequestLog(),
    clock,
    approveAfterMs: nonNegative('approveAfterMs', options.approveAfterMs ?? DEFAULT_APPROVE_AFTER_MS),
    processingDelayMs: nonNegative('processingDelayMs', options.processingDelayMs ?? 0),
  });
}

/** The `clock` option, or the system's; the `now` option it replaced is refused, naming `clock`. */
function checkedClock(options: SandboxLedgerOptions): Clock {
  if (Object.hasOwn(options, 'now')) {
    throw new TypeError(
      'createSandbox: the now option was replaced by clock: give clock: { now, setTimeout, clearTimeout }.',
    );
  }
  const { clock = systemClock } = options;
  const methods = ['now', 'setTimeout', 'clearTimeout'] as const;
  if (methods.every((method) => typeof clock?.[method] === 'function')) return clock;
  throw new TypeError('createSandbox: clock must have now(), setTimeout() and clearTimeout() (a Clock).');
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a number of at least 0.`);
  return value;
}
