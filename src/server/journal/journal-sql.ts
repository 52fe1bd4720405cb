/**
 * The journal's statements, written once with PostgreSQL's `$1` placeholders
 * and turned into SQLite's `?1` for SQLite, so both stores run the same SQL.
 * Every write by a lease holder carries `lease_owner = $2` in its WHERE: a
 * process whose lease passed to another writes nothing, and learns so from
 * the row count.
 *
 * Every time is the database's own (`{now}` below): PostgreSQL's `now()`,
 * SQLite's clock. Callers give durations only, so no process's clock decides
 * whose lease has run out or how old an order is. A test that moves time
 * itself binds its clock's time in place of `{now}`, as one more parameter.
 */
import { SETTLER_DELIVERS_FIRST_MS, SETTLER_LEASE_SUFFIX, UNKNOWN_ORDER_FAILURE } from './journal.js';
import type { SqlDialect } from './migrations.js';

const TABLE = 'pay_checkout_journal';
/** One row: the fleet's sweep of the service for late payments (late-payment-sweep.ts). */
const SWEEP_TABLE = 'pay_checkout_journal_sweep';
const NOW = '{now}';
const RELEASE = 'lease_owner = NULL, lease_expires_at = NULL';
const FREE_LEASE = `(lease_expires_at IS NULL OR lease_expires_at <= ${NOW})`;
/** A settled order a payment found later lifts to paid: expired, or failed because the service did not know it. */
const LIFTABLE = `(outcome = 'expired' OR (outcome = 'failed' AND failure_code = '${UNKNOWN_ORDER_FAILURE}'))`;

/** The service's order total from placeholders `currency` and `value`; the amount recorded stays where they are null. */
function serviceTotal(currency: string, value: string): string {
  return `amount_currency = COALESCE(${currency}, amount_currency), amount_value = COALESCE(${value}, amount_value)`;
}

/** The database's clock in epoch milliseconds, one value for the whole statement. */
const DATABASE_NOW: Record<SqlDialect, string> = {
  // now() is the transaction's start: one instant for every row of the statement.
  postgres: '(EXTRACT(EPOCH FROM now()) * 1000)::bigint',
  // 'now' is fixed for the whole step of a statement.
  sqlite: "CAST(ROUND(unixepoch('subsec') * 1000) AS INTEGER)",
};

/** Where statements read the time: the database's clock, or a parameter the journal binds from a test's clock. */
export type JournalTimeSource = 'database' | 'parameter';

/**
 * The lease owner of an order settled by `owner`'s lookup, for a moment its
 * own to deliver: a name of its own, so that it is never taken for a lease
 * `owner` holds on an order it is delivering already.
 */
const SETTLER_OF = (owner: string) => `${owner} || '${SETTLER_LEASE_SUFFIX}'`;

/** The lease an order settles with: the settler's (`owner`, a placeholder) for a moment, or none when it is ''. */
function settledLease(owner: string): string {
  return `lease_owner = CASE WHEN ${owner} = '' THEN NULL ELSE ${SETTLER_OF(owner)} END,
    lease_expires_at = CASE WHEN ${owner} = '' THEN NULL ELSE ${NOW} + ${SETTLER_DELIVERS_FIRST_MS} END`;
}

/** A claim: lease up to $3 due rows matching `due` to owner $1 for $2 ms (with `own`, rows $1 settled too). */
function claim(due: string, dialect: SqlDialect, own = false): string {
  // PostgreSQL: rows another transaction is claiming right now are skipped,
  // not waited for, so concurrent claimers get disjoint sets without blocking.
  // SQLite runs this inside BEGIN IMMEDIATE, which serialises claimers.
  const lock = dialect === 'postgres' ? 'FOR UPDATE SKIP LOCKED' : '';
  return `UPDATE ${TABLE} SET lease_owner = $1, lease_expires_at = ${NOW} + $2
    WHERE idempotency_key IN (
      SELECT idempotency_key FROM ${TABLE}
      WHERE ${due} AND due_at <= ${NOW} AND ${own ? `(${FREE_LEASE} OR lease_owner = (${SETTLER_OF('$1')}))` : FREE_LEASE}
      ORDER BY due_at LIMIT $3 ${lock}
    ) RETURNING *, ${NOW} AS claimed_at`;
}

function journalStatementsIn(dialect: SqlDialect) {
  return {
    // No target: a row under the key, or one holding the prompt key, keeps this intent out.
    insertIntent: `INSERT INTO ${TABLE} (idempotency_key, phase, create_body, created_at, due_at,
      reference, metadata, line_items, amount_currency, amount_value, issuer,
      attempt_digest, service_key, prompt_key)
      VALUES ($1, 'creating', $2, ${NOW}, ${NOW} + $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
      ON CONFLICT DO NOTHING`,
    releasePrompt: `UPDATE ${TABLE} SET prompt_key = NULL
      WHERE prompt_key = $1 AND (phase = 'settled' OR created_at <= ${NOW} - $2)`,
    attemptByPrompt: `SELECT * FROM ${TABLE} WHERE prompt_key = $1`,
    createdWatching: `UPDATE ${TABLE} SET phase = 'watching', create_body = NULL, order_id = $2,
      payment_status = $3, due_at = ${NOW} + $4, ${RELEASE},
      ${serviceTotal('$5', '$6')} WHERE idempotency_key = $1 AND phase = 'creating'`,
    createdSettled: `UPDATE ${TABLE} SET phase = 'settled', create_body = NULL, order_id = $2,
      payment_status = $3, outcome = $4, settled_at = ${NOW}, due_at = ${NOW}, ${RELEASE},
      failure_code = $5, ${serviceTotal('$6', '$7')}
      WHERE idempotency_key = $1 AND phase = 'creating'`,
    discardIntent: `DELETE FROM ${TABLE} WHERE idempotency_key = $1 AND phase = 'creating'`,
    claimDue: claim(`phase IN ('creating', 'watching')`, dialect),
    // The process that settled an order holds it a moment longer (checkedSettled): it delivers first.
    claimUndelivered: claim(`phase = 'settled' AND delivered_at IS NULL`, dialect, true),
    renewLease: `UPDATE ${TABLE} SET lease_expires_at = ${NOW} + $3
      WHERE idempotency_key = $1 AND lease_owner = $2`,
    checkedPending: `UPDATE ${TABLE} SET payment_status = $3, due_at = ${NOW} + $4, ${RELEASE}
      WHERE idempotency_key = $1 AND lease_owner = $2 AND phase = 'watching'`,
    // Still leased to the lease holder a moment: the order's delivery is its first (it holds the customer).
    checkedSettled: `UPDATE ${TABLE} SET phase = 'settled', payment_status = $3, outcome = $4,
      settled_at = ${NOW}, due_at = ${NOW}, ${settledLease('$2')},
      failure_code = $5, ${serviceTotal('$6', '$7')}
      WHERE idempotency_key = $1 AND lease_owner = $2 AND phase = 'watching'`,
    deferCheck: `UPDATE ${TABLE} SET due_at = ${NOW} + $3, ${RELEASE}
      WHERE idempotency_key = $1 AND lease_owner = $2 AND phase IN ('creating', 'watching')`,
    // The last payment status read stays; an unanswered create's body goes.
    expired: `UPDATE ${TABLE} SET phase = 'settled', create_body = NULL, outcome = 'expired',
      settled_at = ${NOW}, due_at = ${NOW}, ${RELEASE}
      WHERE idempotency_key = $1 AND lease_owner = $2 AND phase IN ('creating', 'watching')`,
    // Whoever holds the lease is watching an order that is already settled: its write will find nothing.
    browserSettled: `UPDATE ${TABLE} SET phase = 'settled', payment_status = $2, outcome = $3,
      settled_at = ${NOW}, due_at = ${NOW}, ${settledLease('$7')},
      failure_code = $4, ${serviceTotal('$5', '$6')} WHERE order_id = $1 AND phase = 'watching'`,
    markDelivered: `UPDATE ${TABLE} SET delivered_at = ${NOW}, due_at = NULL, ${RELEASE}
      WHERE idempotency_key = $1 AND lease_owner = $2 AND phase = 'settled' AND delivered_at IS NULL`,
    deliveryFailed: `UPDATE ${TABLE} SET delivery_attempts = delivery_attempts + 1, last_delivery_error = $3,
      due_at = ${NOW} + $4, ${RELEASE}
      WHERE idempotency_key = $1 AND lease_owner = $2 AND phase = 'settled' AND delivered_at IS NULL`,
    get: `SELECT * FROM ${TABLE} WHERE idempotency_key = $1`,
    listRecent: `SELECT * FROM ${TABLE} WHERE order_id IS NOT NULL
      ORDER BY created_at DESC, idempotency_key DESC LIMIT $1`,
    orderById: `SELECT * FROM ${TABLE} WHERE order_id = $1`,
    ordersByReference: `SELECT * FROM ${TABLE} WHERE reference = $1 AND order_id IS NOT NULL
      ORDER BY created_at DESC, idempotency_key DESC LIMIT $2`,
    recordAmount: `UPDATE ${TABLE} SET amount_currency = $2, amount_value = $3
      WHERE idempotency_key = $1 AND amount_value IS NULL`,
    prune: `DELETE FROM ${TABLE} WHERE phase = 'settled' AND delivered_at IS NOT NULL
      AND delivered_at < ${NOW} - $1`,
    ...latePaymentStatements,
    ...lookupStatements,
  };
}

/** Late payments, the sweep that finds them, and reconciliation's reads (late-payment-sweep.ts, reconciliation.ts). */
const latePaymentStatements = {
  // A delivery in flight (of onExpired) keeps the order expired: its lease is live; once the row
  // is paid, that delivery's mark finds the lease passed to the settler ($5) and writes nothing.
  // An order settled failed because the service did not know it (a proxy's or a fresh service's
  // 404) is lifted too; its previous outcome stays NULL: nothing the payer did failed.
  latePaid: `UPDATE ${TABLE} SET outcome = 'paid',
    previous_outcome = CASE WHEN outcome = 'expired' THEN 'expired' ELSE NULL END, payment_status = $2,
    settled_at = ${NOW}, due_at = ${NOW}, delivered_at = NULL, delivery_attempts = 0,
    last_delivery_error = NULL, failure_code = NULL, ${settledLease('$5')}, ${serviceTotal('$3', '$4')}
    WHERE order_id = $1 AND phase = 'settled' AND ${LIFTABLE} AND ${FREE_LEASE}`,
  expiredOrders: `SELECT order_id, created_at FROM ${TABLE}
    WHERE ${LIFTABLE} AND order_id IS NOT NULL AND created_at >= ${NOW} - $1
    ORDER BY created_at LIMIT $2`,
  ordersWithin: `SELECT * FROM ${TABLE} WHERE order_id IS NOT NULL AND created_at >= ${NOW} - $1
    ORDER BY created_at DESC, idempotency_key DESC LIMIT $2`,
  // The next page of the same: the orders after ($3, $4), the last one read, in that order.
  ordersWithinBefore: `SELECT * FROM ${TABLE} WHERE order_id IS NOT NULL AND created_at >= ${NOW} - $1
    AND (created_at < $3 OR (created_at = $3 AND idempotency_key < $4))
    ORDER BY created_at DESC, idempotency_key DESC LIMIT $2`,
  claimSweep: `UPDATE ${SWEEP_TABLE} SET lease_owner = $1, lease_expires_at = ${NOW} + $2
    WHERE id = 1 AND ${FREE_LEASE} AND (swept_at IS NULL OR swept_at <= ${NOW} - $3)`,
  finishSweep: `UPDATE ${SWEEP_TABLE} SET ${RELEASE},
    swept_at = CASE WHEN $2 = 1 THEN ${NOW} ELSE swept_at END WHERE id = 1 AND lease_owner = $1`,
};

/** The shared lookups' statements (sql-lookups.ts). */
const lookupStatements = {
  lookupLatest: `SELECT lookup_claimed_at, lookup_read_at, lookup_order_status, lookup_payment_status,
    lookup_failure_code, lookup_completed_at, lookup_amount_currency, lookup_amount_value,
    ${NOW} - lookup_read_at AS lookup_age_ms,
    phase, payment_status, failure_code, amount_currency, amount_value, ${NOW} - created_at AS created_age_ms
    FROM ${TABLE} WHERE order_id = $1`,
  // $2 how long a claim holds, $3 how soon the watcher checks again. A watched order whose
  // lease is live is being looked up by the watcher that holds it: that lookup is the one.
  lookupClaim: `UPDATE ${TABLE} SET lookup_claimed_at = ${NOW},
      due_at = CASE WHEN phase = 'watching' AND due_at < ${NOW} + $3 THEN ${NOW} + $3 ELSE due_at END
    WHERE order_id = $1 AND (lookup_claimed_at IS NULL OR lookup_claimed_at <= ${NOW} - $2)
      AND (phase <> 'watching' OR lease_owner IS NULL OR lease_expires_at <= ${NOW})`,
  lookupHold: `UPDATE ${TABLE} SET lookup_claimed_at = ${NOW} WHERE order_id = $1`,
  // $2 how long ago the lookup began. Its statuses replace only older ones; its start counts
  // as a claim, so no other lookup follows it too soon.
  lookupRecord: `UPDATE ${TABLE} SET lookup_read_at = ${NOW} - $2,
      lookup_claimed_at = CASE WHEN lookup_claimed_at IS NULL OR lookup_claimed_at < ${NOW} - $2
        THEN ${NOW} - $2 ELSE lookup_claimed_at END,
      lookup_order_status = $3, lookup_payment_status = $4, lookup_failure_code = $5, lookup_completed_at = $6,
      lookup_amount_currency = $7, lookup_amount_value = $8
    WHERE order_id = $1 AND (lookup_read_at IS NULL OR lookup_read_at <= ${NOW} - $2)`,
};

/** The journal's statement names. */
export type JournalStatementName = keyof ReturnType<typeof journalStatementsIn>;

/** One statement as a store runs it. */
export interface JournalStatement {
  readonly sql: string;
  /** Whether the journal binds its clock's time as the last parameter. */
  readonly takesNow: boolean;
}

/** The journal's statements by name. */
export type JournalStatements = Readonly<Record<JournalStatementName, JournalStatement>>;

/** `sql` with the time read from `source`: the database's clock, or one more parameter after the others. */
function withTime(sql: string, dialect: SqlDialect, source: JournalTimeSource): JournalStatement {
  if (!sql.includes(NOW)) return { sql, takesNow: false };
  if (source === 'database') return { sql: sql.replaceAll(NOW, DATABASE_NOW[dialect]), takesNow: false };
  const last = Math.max(0, ...[...sql.matchAll(/\$(\d+)/g)].map((match) => Number(match[1])));
  const type = dialect === 'postgres' ? 'BIGINT' : 'INTEGER';
  return { sql: sql.replaceAll(NOW, `CAST($${last + 1} AS ${type})`), takesNow: true };
}

/** The journal's statements in `dialect`'s placeholder style, reading the time from `source`. */
export function journalStatements(dialect: SqlDialect, source: JournalTimeSource): JournalStatements {
  const entries = Object.entries(journalStatementsIn(dialect)).map(([name, sql]) => {
    const statement = withTime(sql, dialect, source);
    const text = dialect === 'postgres' ? statement.sql : statement.sql.replace(/\$(\d+)/g, '?$1');
    return [name, { sql: text, takesNow: statement.takesNow }];
  });
  return Object.fromEntries(entries) as JournalStatements;
}
