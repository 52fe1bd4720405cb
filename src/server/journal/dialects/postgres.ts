/**
 * The journal's statements in PostgreSQL: `$1` placeholders, `now()` as the
 * clock, and claims that skip rows another transaction is claiming.
 */
import type { JournalDialect } from './dialect.js';
import { sharedStatements } from './shared-statements.js';
import { FREE_LEASE, NOW, settlerOf, TABLE } from './sql-parts.js';
import { webhookClaim } from './webhook-statements.js';

/**
 * A claim: lease up to $3 due rows matching `due` to owner $1 for $2 ms (with
 * `own`, rows $1 settled too). Rows another transaction is claiming right now
 * are skipped, not waited for, so concurrent claimers get disjoint sets
 * without blocking; one statement is one transaction.
 */
function claim(due: string, own = false): string {
  return `UPDATE ${TABLE} SET lease_owner = $1, lease_expires_at = ${NOW} + $2
    WHERE idempotency_key IN (
      SELECT idempotency_key FROM ${TABLE}
      WHERE ${due} AND due_at <= ${NOW} AND ${own ? `(${FREE_LEASE} OR lease_owner = (${settlerOf('$1')}))` : FREE_LEASE}
      ORDER BY due_at LIMIT $3 FOR UPDATE SKIP LOCKED
    ) RETURNING *, ${NOW} AS claimed_at`;
}

/** A parameter, numbered from 1: `$1`. */
const placeholder = (n: number): string => `$${n}`;

/** The journal in PostgreSQL. */
export const postgres: JournalDialect = {
  name: 'postgres',
  // now() is the transaction's start: one instant for every row of the statement.
  databaseNow: '(EXTRACT(EPOCH FROM now()) * 1000)::bigint',
  integerType: 'BIGINT',
  placeholders: { of: placeholder, pattern: /\$(\d+)/g },
  statements: {
    ...sharedStatements(placeholder),
    claimDue: claim(`phase IN ('creating', 'watching')`),
    // The process that settled an order holds it a moment longer (checkedSettled): it delivers first.
    claimUndelivered: claim(`phase = 'settled' AND delivered_at IS NULL`, true),
    claimWebhookDeliveries: webhookClaim(placeholder, 'FOR UPDATE SKIP LOCKED'),
  },
  migrationPieces: {
    // Version 2: an unanswered create's line items and their total, from its body.
    amountsFromCreateBody: `UPDATE pay_checkout_journal SET
          line_items = (create_body::jsonb -> 'line_items')::text,
          amount_currency = create_body::jsonb #>> '{line_items,0,product,price,currency}',
          amount_value = (SELECT SUM((item #>> '{product,price,value}')::bigint
            * (item #>> '{product,quantity}')::bigint)
            FROM jsonb_array_elements(create_body::jsonb -> 'line_items') AS item)
          WHERE phase = 'creating' AND create_body IS NOT NULL`,
  },
};
