/**
 * The journal's statements, written once with PostgreSQL's `$1` placeholders
 * and turned into SQLite's `?1` for SQLite, so both stores run the same SQL.
 * Every write by a lease holder carries `lease_owner = $2` in its WHERE: a
 * process whose lease passed to another writes nothing, and learns so from
 * the row count.
 */
import type { SqlDialect } from './migrations.js';

const TABLE = 'pay_checkout_journal';
const RELEASE = 'lease_owner = NULL, lease_expires_at = NULL';
const FREE_LEASE = '(lease_expires_at IS NULL OR lease_expires_at <= $3)';

/** The service's order total from placeholders `currency` and `value`; the amount recorded stays where they are null. */
function serviceTotal(currency: string, value: string): string {
  return `amount_currency = COALESCE(${currency}, amount_currency), amount_value = COALESCE(${value}, amount_value)`;
}

/** A claim: lease up to $4 rows matching `due` to owner $1 until $2, at time $3. */
function claim(due: string, dialect: SqlDialect): string {
  // PostgreSQL: rows another transaction is claiming right now are skipped,
  // not waited for, so concurrent claimers get disjoint sets without blocking.
  // SQLite runs this inside BEGIN IMMEDIATE, which serialises claimers.
  const lock = dialect === 'postgres' ? 'FOR UPDATE SKIP LOCKED' : '';
  return `UPDATE ${TABLE} SET lease_owner = $1, lease_expires_at = $2
    WHERE idempotency_key IN (
      SELECT idempotency_key FROM ${TABLE}
      WHERE ${due} AND due_at <= $3 AND ${FREE_LEASE}
      ORDER BY due_at LIMIT $4 ${lock}
    ) RETURNING *`;
}

function journalStatementsIn(dialect: SqlDialect) {
  return {
    insertIntent: `INSERT INTO ${TABLE} (idempotency_key, phase, create_body, created_at, due_at,
      reference, metadata, line_items, amount_currency, amount_value)
      VALUES ($1, 'creating', $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (idempotency_key) DO NOTHING`,
    createdWatching: `UPDATE ${TABLE} SET phase = 'watching', create_body = NULL, order_id = $2,
      payment_status = $3, due_at = $4, ${RELEASE},
      ${serviceTotal('$5', '$6')} WHERE idempotency_key = $1 AND phase = 'creating'`,
    createdSettled: `UPDATE ${TABLE} SET phase = 'settled', create_body = NULL, order_id = $2,
      payment_status = $3, outcome = $4, settled_at = $5, due_at = $5, ${RELEASE},
      failure_code = $6, ${serviceTotal('$7', '$8')}
      WHERE idempotency_key = $1 AND phase = 'creating'`,
    discardIntent: `DELETE FROM ${TABLE} WHERE idempotency_key = $1 AND phase = 'creating'`,
    claimDue: claim(`phase IN ('creating', 'watching')`, dialect),
    claimUndelivered: claim(`phase = 'settled' AND delivered_at IS NULL`, dialect),
    renewLease: `UPDATE ${TABLE} SET lease_expires_at = $3 WHERE idempotency_key = $1 AND lease_owner = $2`,
    checkedPending: `UPDATE ${TABLE} SET payment_status = $3, due_at = $4, ${RELEASE}
      WHERE idempotency_key = $1 AND lease_owner = $2 AND phase = 'watching'`,
    checkedSettled: `UPDATE ${TABLE} SET phase = 'settled', payment_status = $3, outcome = $4,
      settled_at = $5, due_at = $5, ${RELEASE},
      failure_code = $6, ${serviceTotal('$7', '$8')}
      WHERE idempotency_key = $1 AND lease_owner = $2 AND phase = 'watching'`,
    deferCheck: `UPDATE ${TABLE} SET due_at = $3, ${RELEASE}
      WHERE idempotency_key = $1 AND lease_owner = $2 AND phase IN ('creating', 'watching')`,
    // The last payment status read stays; an unanswered create's body goes.
    expired: `UPDATE ${TABLE} SET phase = 'settled', create_body = NULL, outcome = 'expired',
      settled_at = $3, due_at = $3, ${RELEASE}
      WHERE idempotency_key = $1 AND lease_owner = $2 AND phase IN ('creating', 'watching')`,
    // Whoever holds the lease is watching an order that is already settled: its write will find nothing.
    browserSettled: `UPDATE ${TABLE} SET phase = 'settled', payment_status = $2, outcome = $3,
      settled_at = $4, due_at = $4, ${RELEASE},
      failure_code = $5, ${serviceTotal('$6', '$7')} WHERE order_id = $1 AND phase = 'watching'`,
    markDelivered: `UPDATE ${TABLE} SET delivered_at = $3, due_at = NULL, ${RELEASE}
      WHERE idempotency_key = $1 AND lease_owner = $2 AND phase = 'settled' AND delivered_at IS NULL`,
    deliveryFailed: `UPDATE ${TABLE} SET delivery_attempts = delivery_attempts + 1, last_delivery_error = $3,
      due_at = $4, ${RELEASE}
      WHERE idempotency_key = $1 AND lease_owner = $2 AND phase = 'settled' AND delivered_at IS NULL`,
    get: `SELECT * FROM ${TABLE} WHERE idempotency_key = $1`,
    listRecent: `SELECT * FROM ${TABLE} WHERE order_id IS NOT NULL
      ORDER BY created_at DESC, idempotency_key DESC LIMIT $1`,
    orderById: `SELECT * FROM ${TABLE} WHERE order_id = $1`,
    ordersByReference: `SELECT * FROM ${TABLE} WHERE reference = $1 AND order_id IS NOT NULL
      ORDER BY created_at DESC, idempotency_key DESC LIMIT $2`,
    recordAmount: `UPDATE ${TABLE} SET amount_currency = $2, amount_value = $3
      WHERE idempotency_key = $1 AND amount_value IS NULL`,
    prune: `DELETE FROM ${TABLE} WHERE phase = 'settled' AND delivered_at IS NOT NULL AND delivered_at < $1`,
  };
}

/** The journal's statements by name. */
export type JournalStatements = ReturnType<typeof journalStatementsIn>;

/** The journal's statements in `dialect`'s placeholder style. */
export function journalStatements(dialect: SqlDialect): JournalStatements {
  const statements = journalStatementsIn(dialect);
  if (dialect === 'postgres') return statements;
  const entries = Object.entries(statements).map(([name, sql]) => [name, sql.replace(/\$(\d+)/g, '?$1')]);
  return Object.fromEntries(entries) as JournalStatements;
}
