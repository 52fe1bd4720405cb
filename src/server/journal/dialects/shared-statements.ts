/**
 * The statements both dialects write alike, but for their placeholders: each
 * dialect builds them with its own (`p(1)` is `?1` in SQLite, `$1` in
 * PostgreSQL) and writes its claims itself. A database whose SQL differs in
 * one of these writes that statement in its own object instead.
 */
import type { JournalStatementName } from './dialect.js';
import {
  CHECKOUTS_TABLE,
  FREE_LEASE,
  LIFTABLE,
  NOW,
  RELEASE,
  SWEEP_TABLE,
  serviceTotal,
  settledLease,
  TABLE,
} from './sql-parts.js';

/** A dialect's parameter `n`, numbered from 1. */
type Placeholder = (n: number) => string;

/** The statements both dialects share, each parameter written `p(n)`. */
export function sharedStatements(
  p: Placeholder,
): Readonly<Record<Exclude<JournalStatementName, 'claimDue' | 'claimUndelivered'>, string>> {
  return {
    ...orderStatements(p),
    ...latePaymentStatements(p),
    ...lookupStatements(p),
    ...checkoutStatements(p),
  };
}

/** The checkouts the merchant's server created: recorded once, read by id, pruned long after they expired. */
function checkoutStatements(p: Placeholder) {
  return {
    insertCheckout: `INSERT INTO ${CHECKOUTS_TABLE} (id, secret_digest, reference, line_items, metadata,
      amount_currency, amount_value, origin, created_at, expires_at)
      VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}, ${p(7)}, ${p(8)}, ${p(9)}, ${p(10)})
      ON CONFLICT DO NOTHING`,
    checkoutById: `SELECT * FROM ${CHECKOUTS_TABLE} WHERE id = ${p(1)}`,
    pruneCheckouts: `DELETE FROM ${CHECKOUTS_TABLE} WHERE expires_at < ${NOW} - ${p(1)}`,
  };
}

/** An attempt's life: its intent, its order, the watcher's checks, its delivery, and the reads of orders. */
function orderStatements(p: Placeholder) {
  return {
    // No target: a row under the key, or one holding the prompt key, keeps this intent out.
    insertIntent: `INSERT INTO ${TABLE} (idempotency_key, phase, create_body, created_at, due_at,
      reference, metadata, line_items, amount_currency, amount_value, issuer,
      attempt_digest, service_key, prompt_key)
      VALUES (${p(1)}, 'creating', ${p(2)}, ${NOW}, ${NOW} + ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}, ${p(7)}, ${p(8)}, ${p(9)}, ${p(10)}, ${p(11)}, ${p(12)})
      ON CONFLICT DO NOTHING`,
    releasePrompt: `UPDATE ${TABLE} SET prompt_key = NULL
      WHERE prompt_key = ${p(1)} AND (phase = 'settled' OR created_at <= ${NOW} - ${p(2)})`,
    attemptByPrompt: `SELECT * FROM ${TABLE} WHERE prompt_key = ${p(1)}`,
    createdWatching: `UPDATE ${TABLE} SET phase = 'watching', create_body = NULL, order_id = ${p(2)},
      payment_status = ${p(3)}, due_at = ${NOW} + ${p(4)}, ${RELEASE},
      ${serviceTotal(p(5), p(6))} WHERE idempotency_key = ${p(1)} AND phase = 'creating'`,
    createdSettled: `UPDATE ${TABLE} SET phase = 'settled', create_body = NULL, order_id = ${p(2)},
      payment_status = ${p(3)}, outcome = ${p(4)}, settled_at = ${NOW}, due_at = ${NOW}, ${RELEASE},
      failure_code = ${p(5)}, ${serviceTotal(p(6), p(7))}
      WHERE idempotency_key = ${p(1)} AND phase = 'creating'`,
    discardIntent: `DELETE FROM ${TABLE} WHERE idempotency_key = ${p(1)} AND phase = 'creating'`,
    renewLease: `UPDATE ${TABLE} SET lease_expires_at = ${NOW} + ${p(3)}
      WHERE idempotency_key = ${p(1)} AND lease_owner = ${p(2)}`,
    checkedPending: `UPDATE ${TABLE} SET payment_status = ${p(3)}, due_at = ${NOW} + ${p(4)}, ${RELEASE}
      WHERE idempotency_key = ${p(1)} AND lease_owner = ${p(2)} AND phase = 'watching'`,
    // Still leased to the lease holder a moment: the order's delivery is its first (it holds the customer).
    checkedSettled: `UPDATE ${TABLE} SET phase = 'settled', payment_status = ${p(3)}, outcome = ${p(4)},
      settled_at = ${NOW}, due_at = ${NOW}, ${settledLease(p(2))},
      failure_code = ${p(5)}, ${serviceTotal(p(6), p(7))}
      WHERE idempotency_key = ${p(1)} AND lease_owner = ${p(2)} AND phase = 'watching'`,
    deferCheck: `UPDATE ${TABLE} SET due_at = ${NOW} + ${p(3)}, ${RELEASE}
      WHERE idempotency_key = ${p(1)} AND lease_owner = ${p(2)} AND phase IN ('creating', 'watching')`,
    // The last payment status read stays; an unanswered create's body goes.
    expired: `UPDATE ${TABLE} SET phase = 'settled', create_body = NULL, outcome = 'expired',
      settled_at = ${NOW}, due_at = ${NOW}, ${RELEASE}
      WHERE idempotency_key = ${p(1)} AND lease_owner = ${p(2)} AND phase IN ('creating', 'watching')`,
    // Whoever holds the lease is watching an order that is already settled: its write will find nothing.
    browserSettled: `UPDATE ${TABLE} SET phase = 'settled', payment_status = ${p(2)}, outcome = ${p(3)},
      settled_at = ${NOW}, due_at = ${NOW}, ${settledLease(p(7))},
      failure_code = ${p(4)}, ${serviceTotal(p(5), p(6))} WHERE order_id = ${p(1)} AND phase = 'watching'`,
    markDelivered: `UPDATE ${TABLE} SET delivered_at = ${NOW}, due_at = NULL, ${RELEASE}
      WHERE idempotency_key = ${p(1)} AND lease_owner = ${p(2)} AND phase = 'settled' AND delivered_at IS NULL`,
    deliveryFailed: `UPDATE ${TABLE} SET delivery_attempts = delivery_attempts + 1, last_delivery_error = ${p(3)},
      due_at = ${NOW} + ${p(4)}, ${RELEASE}
      WHERE idempotency_key = ${p(1)} AND lease_owner = ${p(2)} AND phase = 'settled' AND delivered_at IS NULL`,
    get: `SELECT * FROM ${TABLE} WHERE idempotency_key = ${p(1)}`,
    listRecent: `SELECT * FROM ${TABLE} WHERE order_id IS NOT NULL
      ORDER BY created_at DESC, idempotency_key DESC LIMIT ${p(1)}`,
    orderById: `SELECT * FROM ${TABLE} WHERE order_id = ${p(1)}`,
    ordersByReference: `SELECT * FROM ${TABLE} WHERE reference = ${p(1)} AND order_id IS NOT NULL
      ORDER BY created_at DESC, idempotency_key DESC LIMIT ${p(2)}`,
    recordAmount: `UPDATE ${TABLE} SET amount_currency = ${p(2)}, amount_value = ${p(3)}
      WHERE idempotency_key = ${p(1)} AND amount_value IS NULL`,
    prune: `DELETE FROM ${TABLE} WHERE phase = 'settled' AND delivered_at IS NOT NULL
      AND delivered_at < ${NOW} - ${p(1)}`,
  };
}

/** Late payments, the sweep that finds them, and reconciliation's reads (late-payment-sweep.ts, reconciliation.ts). */
function latePaymentStatements(p: Placeholder) {
  return {
    // A delivery in flight (of onExpired) keeps the order expired: its lease is live; once the row
    // is paid, that delivery's mark finds the lease passed to the settler (parameter 5) and writes nothing.
    // An order settled failed because the service did not know it (a proxy's or a fresh service's
    // 404) is lifted too; its previous outcome stays NULL: nothing the payer did failed.
    latePaid: `UPDATE ${TABLE} SET outcome = 'paid',
    previous_outcome = CASE WHEN outcome = 'expired' THEN 'expired' ELSE NULL END, payment_status = ${p(2)},
    settled_at = ${NOW}, due_at = ${NOW}, delivered_at = NULL, delivery_attempts = 0,
    last_delivery_error = NULL, failure_code = NULL, ${settledLease(p(5))}, ${serviceTotal(p(3), p(4))}
    WHERE order_id = ${p(1)} AND phase = 'settled' AND ${LIFTABLE} AND ${FREE_LEASE}`,
    expiredOrders: `SELECT order_id, created_at FROM ${TABLE}
    WHERE ${LIFTABLE} AND order_id IS NOT NULL AND created_at >= ${NOW} - ${p(1)}
    ORDER BY created_at LIMIT ${p(2)}`,
    ordersWithin: `SELECT * FROM ${TABLE} WHERE order_id IS NOT NULL AND created_at >= ${NOW} - ${p(1)}
    ORDER BY created_at DESC, idempotency_key DESC LIMIT ${p(2)}`,
    // The next page of the same: the orders after (parameters 3 and 4), the last one read, in that order.
    ordersWithinBefore: `SELECT * FROM ${TABLE} WHERE order_id IS NOT NULL AND created_at >= ${NOW} - ${p(1)}
    AND (created_at < ${p(3)} OR (created_at = ${p(3)} AND idempotency_key < ${p(4)}))
    ORDER BY created_at DESC, idempotency_key DESC LIMIT ${p(2)}`,
    claimSweep: `UPDATE ${SWEEP_TABLE} SET lease_owner = ${p(1)}, lease_expires_at = ${NOW} + ${p(2)}
    WHERE id = 1 AND ${FREE_LEASE} AND (swept_at IS NULL OR swept_at <= ${NOW} - ${p(3)})`,
    finishSweep: `UPDATE ${SWEEP_TABLE} SET ${RELEASE},
    swept_at = CASE WHEN ${p(2)} = 1 THEN ${NOW} ELSE swept_at END WHERE id = 1 AND lease_owner = ${p(1)}`,
  };
}

/** The shared lookups (sql-lookups.ts). */
function lookupStatements(p: Placeholder) {
  return {
    lookupLatest: `SELECT lookup_claimed_at, lookup_read_at, lookup_order_status, lookup_payment_status,
    lookup_failure_code, lookup_completed_at, lookup_amount_currency, lookup_amount_value,
    ${NOW} - lookup_read_at AS lookup_age_ms,
    phase, payment_status, failure_code, amount_currency, amount_value, ${NOW} - created_at AS created_age_ms
    FROM ${TABLE} WHERE order_id = ${p(1)}`,
    // Parameter 2 is how long a claim holds, parameter 3 how soon the watcher checks again. A watched order whose
    // lease is live is being looked up by the watcher that holds it: that lookup is the one.
    lookupClaim: `UPDATE ${TABLE} SET lookup_claimed_at = ${NOW},
      due_at = CASE WHEN phase = 'watching' AND due_at < ${NOW} + ${p(3)} THEN ${NOW} + ${p(3)} ELSE due_at END
    WHERE order_id = ${p(1)} AND (lookup_claimed_at IS NULL OR lookup_claimed_at <= ${NOW} - ${p(2)})
      AND (phase <> 'watching' OR lease_owner IS NULL OR lease_expires_at <= ${NOW})`,
    lookupHold: `UPDATE ${TABLE} SET lookup_claimed_at = ${NOW} WHERE order_id = ${p(1)}`,
    // Parameter 2 is how long ago the lookup began. Its statuses replace only older ones; its start counts
    // as a claim, so no other lookup follows it too soon.
    lookupRecord: `UPDATE ${TABLE} SET lookup_read_at = ${NOW} - ${p(2)},
      lookup_claimed_at = CASE WHEN lookup_claimed_at IS NULL OR lookup_claimed_at < ${NOW} - ${p(2)}
        THEN ${NOW} - ${p(2)} ELSE lookup_claimed_at END,
      lookup_order_status = ${p(3)}, lookup_payment_status = ${p(4)}, lookup_failure_code = ${p(5)}, lookup_completed_at = ${p(6)},
      lookup_amount_currency = ${p(7)}, lookup_amount_value = ${p(8)}
    WHERE order_id = ${p(1)} AND (lookup_read_at IS NULL OR lookup_read_at <= ${NOW} - ${p(2)})`,
  };
}
