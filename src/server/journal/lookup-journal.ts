/**
 * What the journal keeps of each order's latest lookup, so that a whole fleet
 * shares one service lookup per order: the statuses read (the
 * order's, the payment's, a failure code, a completion time, the amount
 * charged; never a name, a number or anything the shopper typed), when they
 * were read, and when the last lookup was claimed. A lookup that finds a
 * fresh status answers with it; one that finds it stale claims the next
 * lookup, and only the claimer calls the service. A claim is a write, and so
 * is a record: a lookup that read what is already kept records nothing, since
 * the claim alone keeps other lookups away for the sharing window (with the
 * kept statuses, still right, to answer with). Every time is the journal's
 * own, as everywhere in the journal: callers give durations only.
 */
import { classifyPaymentStatus } from '../../shared/service-contract.js';
import type { OrderAmount } from '../../shared/wire.js';

/** The statuses of one lookup, as the journal keeps them: nothing personal. */
export interface LookupStatuses {
  orderStatus: string;
  paymentStatus: string;
  /** Why a failed payment failed, when the service said (`declined`…); otherwise `null`. */
  failureCode: string | null;
  /** When the service completed the order, as it wrote it; otherwise `null`. */
  completedAt: string | null;
  /** The service's total of the order, the amount the shopper is charged; `null` when it gave none. */
  amount: OrderAmount | null;
}

/** An order's latest lookup: its statuses, and how long ago (the journal's clock) the lookup that read them began. */
export interface StoredLookup {
  statuses: LookupStatuses;
  ageMs: number;
}

/** What a lookup read, as it is recorded: its statuses, and how long ago the lookup that read them began. */
export interface RecordedLookup {
  statuses: LookupStatuses;
  sinceReadMs: number;
}

/** What a lookup asks of the journal before it calls the service. */
export interface ShareLookupOptions {
  /** A status read this recently answers without a call; a lookup claimed this recently is not claimed again. */
  freshMs: number;
  /** How soon the watcher may look the order up next, if this lookup is claimed: a browser's lookup counts as its. */
  watchAgainInMs: number;
}

/** What the journal answers a lookup that is about to call the service. */
export type SharedLookup =
  /** A status read recently (or a final one): answer with it, call nobody. */
  | { kind: 'fresh'; stored: StoredLookup }
  /** This lookup is the one in flight now: call the service, then `recordLookup` (the last statuses kept, if any). */
  | { kind: 'claimed'; stored: StoredLookup | undefined }
  /** Another lookup is in flight (a browser's elsewhere, or the watcher's): the last status, or the create's before any. */
  | { kind: 'taken'; stored: StoredLookup | undefined }
  /** The journal does not hold this order (another relay created it, or it was pruned). */
  | { kind: 'unknown' };

/** The journal's part in sharing lookups across a fleet. */
export interface LookupJournal {
  /** Answers a recent status, or claims the next lookup of the order (and moves the watcher's next one). */
  shareLookup(orderId: string, options: ShareLookupOptions): Promise<SharedLookup>;
  /** Keeps what a lookup read, unless a later lookup's statuses are already kept. */
  recordLookup(orderId: string, lookup: RecordedLookup): Promise<void>;
  /** Renews the claim of a lookup still in flight: no other lookup of the order is claimed within the window from now. */
  holdLookupClaim(orderId: string): Promise<void>;
}

/** True when `stored` answers a lookup now without a call: read within `freshMs`, or final. */
export function isFreshLookup(stored: StoredLookup, freshMs: number): boolean {
  return stored.ageMs < freshMs || classifyPaymentStatus(stored.statuses.paymentStatus) !== 'pending';
}

/** True when two lookups read the same statuses. */
export function sameStatuses(a: LookupStatuses, b: LookupStatuses): boolean {
  return (
    a.orderStatus === b.orderStatus &&
    a.paymentStatus === b.paymentStatus &&
    a.failureCode === b.failureCode &&
    a.completedAt === b.completedAt &&
    a.amount?.currency === b.amount?.currency &&
    a.amount?.value === b.amount?.value
  );
}

/** The columns of the latest lookup, as a row holds them. */
export interface LookupColumns {
  lookup_claimed_at: number | string | null;
  lookup_read_at: number | string | null;
  lookup_order_status: string | null;
  lookup_payment_status: string | null;
  lookup_failure_code: string | null;
  lookup_completed_at: string | null;
  lookup_amount_currency: string | null;
  lookup_amount_value: number | string | null;
}

/** The lookup a row holds, read `now` on the journal's clock; `undefined` when none was recorded. */
export function storedLookupOf(
  row: Partial<LookupColumns> & { lookup_age_ms?: number | string | null },
  now?: number,
): StoredLookup | undefined {
  if (row.lookup_read_at == null || row.lookup_order_status == null || row.lookup_payment_status == null) {
    return undefined;
  }
  const currency = row.lookup_amount_currency ?? null;
  const value = row.lookup_amount_value ?? null;
  return {
    ageMs: now === undefined ? Number(row.lookup_age_ms) : now - Number(row.lookup_read_at),
    statuses: {
      orderStatus: row.lookup_order_status,
      paymentStatus: row.lookup_payment_status,
      failureCode: row.lookup_failure_code ?? null,
      completedAt: row.lookup_completed_at ?? null,
      amount: currency === null || value === null ? null : { currency, value: Number(value) },
    },
  };
}

/** The columns that keep `statuses`, read at `readAt`. */
export function lookupColumnsOf(
  statuses: LookupStatuses,
  readAt: number,
): Omit<LookupColumns, 'lookup_claimed_at'> {
  return {
    lookup_read_at: readAt,
    lookup_order_status: statuses.orderStatus,
    lookup_payment_status: statuses.paymentStatus,
    lookup_failure_code: statuses.failureCode,
    lookup_completed_at: statuses.completedAt,
    lookup_amount_currency: statuses.amount?.currency ?? null,
    lookup_amount_value: statuses.amount?.value ?? null,
  };
}

/** What a row holds of the service's answer to its create: the statuses known before any lookup. */
export interface CreatedColumns {
  phase: string;
  payment_status: string | null;
  failure_code: string | null;
  amount_currency: string | null;
  amount_value: number | string | bigint | null;
}

/**
 * The statuses the create's answer left on the row, as a lookup read `ageMs`
 * ago would give them: what a lookup answers while another lookup of the
 * order is in flight and none has been recorded yet, so that a fleet calls
 * the service once for an order before its first lookup too, as after it.
 * `undefined` for an unanswered create.
 */
export function createdLookupOf(row: CreatedColumns, ageMs: number): StoredLookup | undefined {
  if (row.phase !== 'watching' || row.payment_status === null) return undefined;
  const { amount_currency: currency, amount_value: value } = row;
  return {
    ageMs,
    statuses: {
      // A watched order's payment waits for the payer: the service's order still requires payment.
      orderStatus: 'requires_payment',
      paymentStatus: row.payment_status,
      failureCode: row.failure_code,
      completedAt: null,
      amount: currency === null || value === null ? null : { currency, value: Number(value) },
    },
  };
}

/** The parts of a row held in memory that a lookup reads and writes (journal-row.ts has the whole row). */
type LookupRow = Partial<LookupColumns> &
  CreatedColumns & {
    lease_owner: string | null;
    lease_expires_at: number | string | bigint | null;
    due_at: number | string | bigint | null;
    created_at: number | string | bigint;
  };

/** `shareLookup` on a row held in memory, `now` on the journal's clock (the SQL stores: sql-lookups.ts). */
export function shareLookupOnRow(row: LookupRow, now: number, options: ShareLookupOptions): SharedLookup {
  const { freshMs, watchAgainInMs } = options;
  const stored = storedLookupOf(row, now);
  if (stored && isFreshLookup(stored, freshMs)) return { kind: 'fresh', stored };
  const claimedAt = row.lookup_claimed_at == null ? undefined : Number(row.lookup_claimed_at);
  // The watcher holding a watched order's lease is looking it up: that lookup is the one.
  const leaseLive = row.lease_expires_at !== null && Number(row.lease_expires_at) > now;
  const watcherLooking = row.phase === 'watching' && row.lease_owner !== null && leaseLive;
  if ((claimedAt !== undefined && claimedAt > now - freshMs) || watcherLooking)
    return { kind: 'taken', stored: stored ?? createdLookupOf(row, now - Number(row.created_at)) };
  row.lookup_claimed_at = now;
  const watchAgainAt = now + Math.round(watchAgainInMs);
  if (row.phase === 'watching' && Number(row.due_at) < watchAgainAt) row.due_at = watchAgainAt;
  return { kind: 'claimed', stored };
}

/** `recordLookup` on a row held in memory, `now` on the journal's clock. */
export function recordLookupOnRow(row: LookupRow, now: number, lookup: RecordedLookup): void {
  const readAt = now - Math.round(lookup.sinceReadMs);
  if (row.lookup_read_at != null && Number(row.lookup_read_at) > readAt) return;
  Object.assign(row, lookupColumnsOf(lookup.statuses, readAt));
  if (row.lookup_claimed_at == null || Number(row.lookup_claimed_at) < readAt) row.lookup_claimed_at = readAt;
}
