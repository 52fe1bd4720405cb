/**
 * What a sandbox holds, in one place its endpoints share: orders, customers,
 * idempotency records, keys, the clock and the simulated timings.
 */
import { IDEMPOTENCY_KEY_RETENTION_MS } from '../shared/service-contract.js';
import { KeyRegistry } from './authentication.js';
import { CustomerDirectory } from './customer-directory.js';
import { IdempotencyStore } from './idempotency-store.js';
import { OrderStore } from './order-store.js';

/** Options of a sandbox's ledger (the sandbox's own, minus its base path). */
export interface SandboxLedgerOptions {
  /** The simulated payer answers this long after the payment starts. Default 6000 ms. */
  approveAfterMs?: number;
  /** Simulated work time of a write, during which its idempotency key is in flight. Default 0. */
  processingDelayMs?: number;
  /** The clock, in ms (default `Date.now`): payments settle and keys expire by it. */
  now?: () => number;
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
  readonly now: () => number;
  readonly approveAfterMs: number;
  readonly processingDelayMs: number;
}

const DEFAULT_APPROVE_AFTER_MS = 6000;
const DEFAULT_MAX_ORDERS = 100_000;
const DEFAULT_MAX_IDEMPOTENCY_RECORDS = 100_000;

/** A new, empty ledger; throws a RangeError for a negative delay or a bad cap. */
export function createLedger(options: SandboxLedgerOptions): SandboxLedger {
  const now = options.now ?? Date.now;
  const maxOrders = options.maxOrders ?? DEFAULT_MAX_ORDERS;
  return Object.freeze({
    orders: new OrderStore(maxOrders),
    customers: new CustomerDirectory(maxOrders),
    idempotency: new IdempotencyStore(
      options.maxIdempotencyRecords ?? DEFAULT_MAX_IDEMPOTENCY_RECORDS,
      IDEMPOTENCY_KEY_RETENTION_MS,
    ),
    keys: new KeyRegistry(now),
    now,
    approveAfterMs: nonNegative('approveAfterMs', options.approveAfterMs ?? DEFAULT_APPROVE_AFTER_MS),
    processingDelayMs: nonNegative('processingDelayMs', options.processingDelayMs ?? 0),
  });
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a number of at least 0.`);
  return value;
}
