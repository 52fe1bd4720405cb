/**
 * What the journal keeps of each order's latest lookup, so that a whole fleet
 * shares one service lookup per order (contract §7): the statuses read (the
 * order's, the payment's, a failure code, a completion time; never a name, a
 * number or anything the shopper typed), when they were read, and when the
 * last lookup was claimed. A lookup that finds a fresh status answers with it;
 * one that finds it stale claims the next lookup, and only the claimer calls
 * the service. A claim is a write, and so is a record: a lookup that read
 * what is already kept records nothing, since the claim alone keeps other
 * lookups away for the sharing window (with the kept statuses, still right,
 * to answer with). Every time is the caller's, as everywhere in the journal.
 */
import { classifyPaymentStatus } from '../../shared/service-contract.js';

/** The statuses of one lookup, as the journal keeps them: nothing personal. */
export interface LookupStatuses {
  orderStatus: string;
  paymentStatus: string;
  /** Why a failed payment failed, when the service said (`declined`…); otherwise `null`. */
  failureCode: string | null;
  /** When the service completed the order, as it wrote it; otherwise `null`. */
  completedAt: string | null;
}

/** An order's latest lookup: its statuses, and when the lookup that read them began. */
export interface StoredLookup {
  statuses: LookupStatuses;
  readAt: number;
}

/** What a lookup asks of the journal before it calls the service. */
export interface ShareLookupOptions {
  now: number;
  /** A status read this recently answers without a call; a lookup claimed this recently is not claimed again. */
  freshMs: number;
  /** When the watcher may look the order up next, if this lookup is claimed: a browser's lookup counts as its. */
  watchAgainAt: number;
}

/** What the journal answers a lookup that is about to call the service. */
export type SharedLookup =
  /** A status read recently (or a final one): answer with it, call nobody. */
  | { kind: 'fresh'; stored: StoredLookup }
  /** This lookup is the one in flight now: call the service, then `recordLookup` (the last statuses kept, if any). */
  | { kind: 'claimed'; stored: StoredLookup | undefined }
  /** Another lookup is in flight (a browser's elsewhere, or the watcher's): the last status, if any. */
  | { kind: 'taken'; stored: StoredLookup | undefined }
  /** The journal does not hold this order (another relay created it, or it was pruned). */
  | { kind: 'unknown' };

/** The journal's part in sharing lookups across a fleet. */
export interface LookupJournal {
  /** Answers a recent status, or claims the next lookup of the order (and moves the watcher's next one). */
  shareLookup(orderId: string, options: ShareLookupOptions): Promise<SharedLookup>;
  /** Keeps what a lookup read, unless a later lookup's statuses are already kept. */
  recordLookup(orderId: string, lookup: StoredLookup): Promise<void>;
}

/** True when `stored` answers a lookup at `now` without a call: read within `freshMs`, or final. */
export function isFreshLookup(stored: StoredLookup, now: number, freshMs: number): boolean {
  return now - stored.readAt < freshMs || classifyPaymentStatus(stored.statuses.paymentStatus) !== 'pending';
}

/** True when two lookups read the same statuses. */
export function sameStatuses(a: LookupStatuses, b: LookupStatuses): boolean {
  return (
    a.orderStatus === b.orderStatus &&
    a.paymentStatus === b.paymentStatus &&
    a.failureCode === b.failureCode &&
    a.completedAt === b.completedAt
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
}

/** The lookup a row holds, or `undefined` when none was recorded. */
export function storedLookupOf(row: Partial<LookupColumns>): StoredLookup | undefined {
  if (row.lookup_read_at == null || row.lookup_order_status == null || row.lookup_payment_status == null) {
    return undefined;
  }
  return {
    readAt: Number(row.lookup_read_at),
    statuses: {
      orderStatus: row.lookup_order_status,
      paymentStatus: row.lookup_payment_status,
      failureCode: row.lookup_failure_code ?? null,
      completedAt: row.lookup_completed_at ?? null,
    },
  };
}

/** The columns that keep `lookup`. */
export function lookupColumnsOf({
  statuses,
  readAt,
}: StoredLookup): Omit<LookupColumns, 'lookup_claimed_at'> {
  return {
    lookup_read_at: readAt,
    lookup_order_status: statuses.orderStatus,
    lookup_payment_status: statuses.paymentStatus,
    lookup_failure_code: statuses.failureCode,
    lookup_completed_at: statuses.completedAt,
  };
}
