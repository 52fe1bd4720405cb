/**
 * The pieces of SQL every dialect of the journal writes alike: its tables,
 * the lease conditions and assignments, and the time marker. Every write by a
 * lease holder carries `lease_owner = <owner>` in its WHERE: a process whose
 * lease passed to another writes nothing, and learns so from the row count.
 *
 * Every time is the database's own (`{now}`, NOW below): callers give
 * durations only, so no process's clock decides whose lease has run out or
 * how old an order is. A test that moves time itself binds its clock's time
 * in place of `{now}`, as one more parameter (journal-sql.ts).
 */
import { SETTLER_DELIVERS_FIRST_MS, SETTLER_LEASE_SUFFIX, UNKNOWN_ORDER_FAILURE } from '../journal.js';

/** The journal's table: one row per checkout attempt. */
export const TABLE = 'pay_checkout_journal';
/** One row: the fleet's sweep of the service for late payments (late-payment-sweep.ts). */
export const SWEEP_TABLE = 'pay_checkout_journal_sweep';
/** The checkouts the merchant's server created (checkouts/). */
export const CHECKOUTS_TABLE = 'pay_checkout_checkouts';
/** Where a statement reads the time, replaced when the journal opens (journal-sql.ts). */
export const NOW = '{now}';
/** Lets go of a row's lease. */
export const RELEASE = 'lease_owner = NULL, lease_expires_at = NULL';
/** A row nobody holds: no lease, or one run out. */
export const FREE_LEASE = `(lease_expires_at IS NULL OR lease_expires_at <= ${NOW})`;
/** A settled order a payment found later lifts to paid: expired, or failed because the service did not know it. */
export const LIFTABLE = `(outcome = 'expired' OR (outcome = 'failed' AND failure_code = '${UNKNOWN_ORDER_FAILURE}'))`;

/** The service's order total from parameters `currency` and `value`; the amount recorded stays where they are null. */
export function serviceTotal(currency: string, value: string): string {
  return `amount_currency = COALESCE(${currency}, amount_currency), amount_value = COALESCE(${value}, amount_value)`;
}

/**
 * The lease owner of an order settled by `owner`'s lookup, for a moment its
 * own to deliver: a name of its own, so that it is never taken for a lease
 * `owner` holds on an order it is delivering already.
 */
export const settlerOf = (owner: string): string => `${owner} || '${SETTLER_LEASE_SUFFIX}'`;

/** The lease an order settles with: the settler's (`owner`, a parameter) for a moment, or none when it is ''. */
export function settledLease(owner: string): string {
  return `lease_owner = CASE WHEN ${owner} = '' THEN NULL ELSE ${settlerOf(owner)} END,
    lease_expires_at = CASE WHEN ${owner} = '' THEN NULL ELSE ${NOW} + ${SETTLER_DELIVERS_FIRST_MS} END`;
}
