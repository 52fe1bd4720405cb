/**
 * The journal's statements in SQLite: `?1` placeholders, `unixepoch` as the
 * clock, and claims that the store runs one at a time (BEGIN IMMEDIATE).
 */
import type { JournalDialect } from './dialect.js';
import {
  FREE_LEASE,
  LIFTABLE,
  NOW,
  RELEASE,
  SWEEP_TABLE,
  serviceTotal,
  settledLease,
  settlerOf,
  TABLE,
} from './sql-parts.js';

/**
 * A claim: lease up to ?3 due rows matching `due` to owner ?1 for ?2 ms (with
 * `own`, rows ?1 settled too). The store runs it inside BEGIN IMMEDIATE
 * (sqlite-journal.ts), which serialises claimers, so it locks no rows itself;
 * RETURNING hands back the rows it leased.
 */
function claim(due: string, own = false): string {
  return `UPDATE ${TABLE} SET lease_owner = ?1, lease_expires_at = ${NOW} + ?2
    WHERE idempotency_key IN (
      SELECT idempotency_key FROM ${TABLE}
      WHERE ${due} AND due_at <= ${NOW} AND ${own ? `(${FREE_LEASE} OR lease_owner = (${settlerOf('?1')}))` : FREE_LEASE}
      ORDER BY due_at LIMIT ?3
    ) RETURNING *, ${NOW} AS claimed_at`;
}

/** The journal in SQLite. */
export const sqlite: JournalDialect = {
  name: 'sqlite',
  // 'now' is fixed for the whole step of a statement.
  databaseNow: "CAST(ROUND(unixepoch('subsec') * 1000) AS INTEGER)",
  integerType: 'INTEGER',
  placeholders: { of: (n) => `?${n}`, pattern: /\?(\d+)/g },
  statements: {
    // No target: a row under the key, or one holding the prompt key, keeps this intent out.
    insertIntent: `INSERT INTO ${TABLE} (idempotency_key, phase, create_body, created_at, due_at,
      reference, metadata, line_items, amount_currency, amount_value, issuer,
      attempt_digest, service_key, prompt_key)
      VALUES (?1, 'creating', ?2, ${NOW}, ${NOW} + ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
      ON CONFLICT DO NOTHING`,
    releasePrompt: `UPDATE ${TABLE} SET prompt_key = NULL
      WHERE prompt_key = ?1 AND (phase = 'settled' OR created_at <= ${NOW} - ?2)`,
    attemptByPrompt: `SELECT * FROM ${TABLE} WHERE prompt_key = ?1`,
    createdWatching: `UPDATE ${TABLE} SET phase = 'watching', create_body = NULL, order_id = ?2,
      payment_status = ?3, due_at = ${NOW} + ?4, ${RELEASE},
      ${serviceTotal('?5', '?6')} WHERE idempotency_key = ?1 AND phase = 'creating'`,
    createdSettled: `UPDATE ${TABLE} SET phase = 'settled', create_body = NULL, order_id = ?2,
      payment_status = ?3, outcome = ?4, settled_at = ${NOW}, due_at = ${NOW}, ${RELEASE},
      failure_code = ?5, ${serviceTotal('?6', '?7')}
      WHERE idempotency_key = ?1 AND phase = 'creating'`,
    discardIntent: `DELETE FROM ${TABLE} WHERE idempotency_key = ?1 AND phase = 'creating'`,
    claimDue: claim(`phase IN ('creating', 'watching')`),
    // The process that settled an order holds it a moment longer (checkedSettled): it delivers first.
    claimUndelivered: claim(`phase = 'settled' AND delivered_at IS NULL`, true),
    renewLease: `UPDATE ${TABLE} SET lease_expires_at = ${NOW} + ?3
      WHERE idempotency_key = ?1 AND lease_owner = ?2`,
    checkedPending: `UPDATE ${TABLE} SET payment_status = ?3, due_at = ${NOW} + ?4, ${RELEASE}
      WHERE idempotency_key = ?1 AND lease_owner = ?2 AND phase = 'watching'`,
    // Still leased to the lease holder a moment: the order's delivery is its first (it holds the customer).
    checkedSettled: `UPDATE ${TABLE} SET phase = 'settled', payment_status = ?3, outcome = ?4,
      settled_at = ${NOW}, due_at = ${NOW}, ${settledLease('?2')},
      failure_code = ?5, ${serviceTotal('?6', '?7')}
      WHERE idempotency_key = ?1 AND lease_owner = ?2 AND phase = 'watching'`,
    deferCheck: `UPDATE ${TABLE} SET due_at = ${NOW} + ?3, ${RELEASE}
      WHERE idempotency_key = ?1 AND lease_owner = ?2 AND phase IN ('creating', 'watching')`,
    // The last payment status read stays; an unanswered create's body goes.
    expired: `UPDATE ${TABLE} SET phase = 'settled', create_body = NULL, outcome = 'expired',
      settled_at = ${NOW}, due_at = ${NOW}, ${RELEASE}
      WHERE idempotency_key = ?1 AND lease_owner = ?2 AND phase IN ('creating', 'watching')`,
    // Whoever holds the lease is watching an order that is already settled: its write will find nothing.
    browserSettled: `UPDATE ${TABLE} SET phase = 'settled', payment_status = ?2, outcome = ?3,
      settled_at = ${NOW}, due_at = ${NOW}, ${settledLease('?7')},
      failure_code = ?4, ${serviceTotal('?5', '?6')} WHERE order_id = ?1 AND phase = 'watching'`,
    markDelivered: `UPDATE ${TABLE} SET delivered_at = ${NOW}, due_at = NULL, ${RELEASE}
      WHERE idempotency_key = ?1 AND lease_owner = ?2 AND phase = 'settled' AND delivered_at IS NULL`,
    deliveryFailed: `UPDATE ${TABLE} SET delivery_attempts = delivery_attempts + 1, last_delivery_error = ?3,
      due_at = ${NOW} + ?4, ${RELEASE}
      WHERE idempotency_key = ?1 AND lease_owner = ?2 AND phase = 'settled' AND delivered_at IS NULL`,
    get: `SELECT * FROM ${TABLE} WHERE idempotency_key = ?1`,
    listRecent: `SELECT * FROM ${TABLE} WHERE order_id IS NOT NULL
      ORDER BY created_at DESC, idempotency_key DESC LIMIT ?1`,
    orderById: `SELECT * FROM ${TABLE} WHERE order_id = ?1`,
    ordersByReference: `SELECT * FROM ${TABLE} WHERE reference = ?1 AND order_id IS NOT NULL
      ORDER BY created_at DESC, idempotency_key DESC LIMIT ?2`,
    recordAmount: `UPDATE ${TABLE} SET amount_currency = ?2, amount_value = ?3
      WHERE idempotency_key = ?1 AND amount_value IS NULL`,
    prune: `DELETE FROM ${TABLE} WHERE phase = 'settled' AND delivered_at IS NOT NULL
      AND delivered_at < ${NOW} - ?1`,

    // Late payments, the sweep that finds them, and reconciliation's reads (late-payment-sweep.ts, reconciliation.ts).
    // A delivery in flight (of onExpired) keeps the order expired: its lease is live; once the row
    // is paid, that delivery's mark finds the lease passed to the settler (?5) and writes nothing.
    // An order settled failed because the service did not know it (a proxy's or a fresh service's
    // 404) is lifted too; its previous outcome stays NULL: nothing the payer did failed.
    latePaid: `UPDATE ${TABLE} SET outcome = 'paid',
    previous_outcome = CASE WHEN outcome = 'expired' THEN 'expired' ELSE NULL END, payment_status = ?2,
    settled_at = ${NOW}, due_at = ${NOW}, delivered_at = NULL, delivery_attempts = 0,
    last_delivery_error = NULL, failure_code = NULL, ${settledLease('?5')}, ${serviceTotal('?3', '?4')}
    WHERE order_id = ?1 AND phase = 'settled' AND ${LIFTABLE} AND ${FREE_LEASE}`,
    expiredOrders: `SELECT order_id, created_at FROM ${TABLE}
    WHERE ${LIFTABLE} AND order_id IS NOT NULL AND created_at >= ${NOW} - ?1
    ORDER BY created_at LIMIT ?2`,
    ordersWithin: `SELECT * FROM ${TABLE} WHERE order_id IS NOT NULL AND created_at >= ${NOW} - ?1
    ORDER BY created_at DESC, idempotency_key DESC LIMIT ?2`,
    // The next page of the same: the orders after (?3, ?4), the last one read, in that order.
    ordersWithinBefore: `SELECT * FROM ${TABLE} WHERE order_id IS NOT NULL AND created_at >= ${NOW} - ?1
    AND (created_at < ?3 OR (created_at = ?3 AND idempotency_key < ?4))
    ORDER BY created_at DESC, idempotency_key DESC LIMIT ?2`,
    claimSweep: `UPDATE ${SWEEP_TABLE} SET lease_owner = ?1, lease_expires_at = ${NOW} + ?2
    WHERE id = 1 AND ${FREE_LEASE} AND (swept_at IS NULL OR swept_at <= ${NOW} - ?3)`,
    finishSweep: `UPDATE ${SWEEP_TABLE} SET ${RELEASE},
    swept_at = CASE WHEN ?2 = 1 THEN ${NOW} ELSE swept_at END WHERE id = 1 AND lease_owner = ?1`,

    // The shared lookups (sql-lookups.ts).
    lookupLatest: `SELECT lookup_claimed_at, lookup_read_at, lookup_order_status, lookup_payment_status,
    lookup_failure_code, lookup_completed_at, lookup_amount_currency, lookup_amount_value,
    ${NOW} - lookup_read_at AS lookup_age_ms,
    phase, payment_status, failure_code, amount_currency, amount_value, ${NOW} - created_at AS created_age_ms
    FROM ${TABLE} WHERE order_id = ?1`,
    // ?2 how long a claim holds, ?3 how soon the watcher checks again. A watched order whose
    // lease is live is being looked up by the watcher that holds it: that lookup is the one.
    lookupClaim: `UPDATE ${TABLE} SET lookup_claimed_at = ${NOW},
      due_at = CASE WHEN phase = 'watching' AND due_at < ${NOW} + ?3 THEN ${NOW} + ?3 ELSE due_at END
    WHERE order_id = ?1 AND (lookup_claimed_at IS NULL OR lookup_claimed_at <= ${NOW} - ?2)
      AND (phase <> 'watching' OR lease_owner IS NULL OR lease_expires_at <= ${NOW})`,
    lookupHold: `UPDATE ${TABLE} SET lookup_claimed_at = ${NOW} WHERE order_id = ?1`,
    // ?2 how long ago the lookup began. Its statuses replace only older ones; its start counts
    // as a claim, so no other lookup follows it too soon.
    lookupRecord: `UPDATE ${TABLE} SET lookup_read_at = ${NOW} - ?2,
      lookup_claimed_at = CASE WHEN lookup_claimed_at IS NULL OR lookup_claimed_at < ${NOW} - ?2
        THEN ${NOW} - ?2 ELSE lookup_claimed_at END,
      lookup_order_status = ?3, lookup_payment_status = ?4, lookup_failure_code = ?5, lookup_completed_at = ?6,
      lookup_amount_currency = ?7, lookup_amount_value = ?8
    WHERE order_id = ?1 AND (lookup_read_at IS NULL OR lookup_read_at <= ${NOW} - ?2)`,
  },
  migrationPieces: {
    // Version 2: an unanswered create's line items and their total, from its body.
    amountsFromCreateBody: `UPDATE pay_checkout_journal SET
          line_items = json_extract(create_body, '$.line_items'),
          amount_currency = json_extract(create_body, '$.line_items[0].product.price.currency'),
          amount_value = (SELECT SUM(json_extract(item.value, '$.product.price.value')
            * json_extract(item.value, '$.product.quantity'))
            FROM json_each(create_body, '$.line_items') AS item)
          WHERE phase = 'creating' AND create_body IS NOT NULL`,
  },
};
