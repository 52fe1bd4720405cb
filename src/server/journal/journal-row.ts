/**
 * The journal's one table as every store holds it: the same snake_case
 * columns in memory, in SQLite and in PostgreSQL, and one mapping to the
 * typed entries, so the three stores cannot drift apart in what they return.
 */
import { classifyPaymentStatus } from '../../shared/service-contract.js';
import type {
  Claimed,
  CreateRequestBody,
  FulfilmentSummary,
  JournalEntry,
  JournalOutcome,
  PendingEntry,
  SettledEntry,
} from './journal.js';

/** A time column as a driver may hand it back (PostgreSQL's `bigint` arrives as a string). */
type StoredInteger = number | string | bigint;

/** One row of `pay_checkout_journal`, column for column. */
export interface JournalRow {
  idempotency_key: string;
  phase: string;
  create_body: string | null;
  order_id: string | null;
  payment_status: string | null;
  outcome: string | null;
  created_at: StoredInteger;
  due_at: StoredInteger | null;
  settled_at: StoredInteger | null;
  delivered_at: StoredInteger | null;
  delivery_attempts: StoredInteger;
  last_delivery_error: string | null;
  lease_owner: string | null;
  lease_expires_at: StoredInteger | null;
  /** Not a column: the journal's time, which a claim returns with each row it leased. */
  claimed_at?: StoredInteger;
  /** From schema version 2: what the checkout was for (journal-order.ts), and why a payment failed. */
  reference: string | null;
  metadata: string | null;
  line_items: string | null;
  amount_currency: string | null;
  amount_value: StoredInteger | null;
  failure_code: string | null;
  /** From schema version 4: the mobile-money network of the checkout (issuer code), `null` on older rows. */
  issuer: string | null;
  /** From schema version 5: the keyed digest of the attempt (cart, name, number, network), `null` on older rows. */
  attempt_digest: string | null;
  /** From schema version 5: the key the service knows the create by; `null` on older rows, whose key is `idempotency_key`. */
  service_key: string | null;
  /** From schema version 5: the keyed digest of the checkout's reference and number while this row holds its prompt. */
  prompt_key: string | null;
  /** From schema version 6: `expired` on an order the service completed after the relay settled it expired. */
  previous_outcome?: string | null;
}

/** The longest failure description kept: enough to tell errors apart, too short to hold a record. */
export const DELIVERY_ERROR_MAX_LENGTH = 200;

/** The outcome a final payment status settles an order with, or `null` while it is pending. */
export function outcomeOfPaymentStatus(paymentStatus: string): Exclude<JournalOutcome, 'expired'> | null {
  const outcome = classifyPaymentStatus(paymentStatus);
  return outcome === 'pending' ? null : outcome;
}

function toNumber(value: StoredInteger): number {
  return typeof value === 'number' ? value : Number(value);
}

function toNumberOrNull(value: StoredInteger | null): number | null {
  return value === null ? null : toNumber(value);
}

function requireValue<T>(value: T | null, column: string, phase: string): T {
  // A row that breaks this was written by something other than the journal.
  if (value === null) throw new Error(`A ${phase} journal entry has no ${column}.`);
  return value;
}

/** The typed entry a row holds. */
export function rowToEntry(row: JournalRow): JournalEntry {
  const base = { idempotencyKey: row.idempotency_key, createdAt: toNumber(row.created_at) };
  if (row.phase === 'creating') {
    const body = JSON.parse(requireValue(row.create_body, 'create_body', row.phase)) as CreateRequestBody;
    return {
      ...base,
      phase: 'creating',
      createBody: body,
      dueAt: toNumber(requireValue(row.due_at, 'due_at', row.phase)),
      ...(row.service_key ? { serviceKey: row.service_key } : {}),
    };
  }
  if (row.phase === 'watching') {
    return {
      ...base,
      phase: 'watching',
      orderId: requireValue(row.order_id, 'order_id', row.phase),
      paymentStatus: requireValue(row.payment_status, 'payment_status', row.phase),
      dueAt: toNumber(requireValue(row.due_at, 'due_at', row.phase)),
    };
  }
  return {
    ...base,
    phase: 'settled',
    orderId: row.order_id,
    outcome: requireValue(row.outcome, 'outcome', row.phase) as JournalOutcome,
    paymentStatus: row.payment_status,
    settledAt: toNumber(requireValue(row.settled_at, 'settled_at', row.phase)),
    deliveredAt: toNumberOrNull(row.delivered_at),
    deliveryAttempts: toNumber(row.delivery_attempts),
    dueAt: toNumberOrNull(row.due_at),
    lastDeliveryError: row.last_delivery_error,
  };
}

/** Entries a claim returned, due first; claims come back in no particular order from SQL. */
export function claimedEntries<T extends PendingEntry | SettledEntry>(
  rows: readonly JournalRow[],
): Claimed<T>[] {
  return rows
    .map((row) => {
      const claimedAt = toNumber(requireValue(row.claimed_at ?? null, 'claimed_at', 'claimed'));
      return { ...(rowToEntry(row) as T), claimedAt };
    })
    .sort((a, b) => (a.dueAt ?? 0) - (b.dueAt ?? 0) || a.createdAt - b.createdAt);
}

/** A failure description cut to `DELIVERY_ERROR_MAX_LENGTH`. */
export function shortDeliveryError(error: string): string {
  return error.slice(0, DELIVERY_ERROR_MAX_LENGTH);
}

/** The demo's view of a row: order id, status, delivery time. */
export function fulfilmentSummary(row: JournalRow): FulfilmentSummary {
  const entry = rowToEntry(row);
  if (entry.phase === 'creating') throw new Error('An unanswered create has no order to list.');
  return entry.phase === 'settled'
    ? { orderId: entry.orderId ?? '', status: entry.outcome, deliveredAt: entry.deliveredAt }
    : { orderId: entry.orderId, status: 'pending', deliveredAt: null };
}
