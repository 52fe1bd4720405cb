/**
 * The journal's statements in SQLite: `?1` placeholders, `unixepoch` as the
 * clock, and claims that the store runs one at a time (BEGIN IMMEDIATE).
 */
import type { JournalDialect } from './dialect.js';
import { sharedStatements } from './shared-statements.js';
import { FREE_LEASE, NOW, settlerOf, TABLE } from './sql-parts.js';
import { webhookClaim } from './webhook-statements.js';

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

/** A parameter, numbered from 1: `?1`. */
const placeholder = (n: number): string => `?${n}`;

/** The journal in SQLite. */
export const sqlite: JournalDialect = {
  name: 'sqlite',
  // 'now' is fixed for the whole step of a statement.
  databaseNow: "CAST(ROUND(unixepoch('subsec') * 1000) AS INTEGER)",
  integerType: 'INTEGER',
  placeholders: { of: placeholder, pattern: /\?(\d+)/g },
  statements: {
    ...sharedStatements(placeholder),
    claimDue: claim(`phase IN ('creating', 'watching')`),
    // The process that settled an order holds it a moment longer (checkedSettled): it delivers first.
    claimUndelivered: claim(`phase = 'settled' AND delivered_at IS NULL`, true),
    claimWebhookDeliveries: webhookClaim(placeholder),
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
