/**
 * Shared lookups (lookup-journal.ts) on the SQL stores. A lookup reads the
 * order's latest status first (a read, cheap in both databases); only a stale
 * one leads to a write, the claim, whose WHERE lets one lookup per order
 * through in any window, across every process on the database: PostgreSQL
 * re-checks it on the row it locked, SQLite runs writers one at a time.
 */
import {
  isFreshLookup,
  type LookupColumns,
  type LookupJournal,
  lookupColumnsOf,
  type SharedLookup,
  storedLookupOf,
} from './lookup-journal.js';
import type { SqlDialect } from './migrations.js';

/** A value bound to a statement parameter. */
type SqlValue = string | number | null;

/** What the shared lookups need of a store's executor (sql-journal.ts's `SqlExecutor` is one). */
export interface LookupExecutor {
  readonly dialect: SqlDialect;
  execute(sql: string, params: readonly SqlValue[]): Promise<number>;
  query(sql: string, params: readonly SqlValue[]): Promise<readonly object[]>;
}

const TABLE = 'pay_checkout_journal';

/** The statements, in PostgreSQL's `$n` placeholders. */
const LOOKUP_STATEMENTS = {
  latest: `SELECT phase, lookup_claimed_at, lookup_read_at, lookup_order_status, lookup_payment_status,
    lookup_failure_code, lookup_completed_at FROM ${TABLE} WHERE order_id = $1`,
  // $2 now, $3 the oldest claim that still holds, $4 the watcher's next check. A watched order
  // whose lease is live is being looked up by the watcher that holds it: that lookup is the one.
  claim: `UPDATE ${TABLE} SET lookup_claimed_at = $2,
      due_at = CASE WHEN phase = 'watching' AND due_at < $4 THEN $4 ELSE due_at END
    WHERE order_id = $1 AND (lookup_claimed_at IS NULL OR lookup_claimed_at <= $3)
      AND (phase <> 'watching' OR lease_owner IS NULL OR lease_expires_at <= $2)`,
  // A lookup's statuses replace only older ones; its start counts as a claim, so no other lookup follows it too soon.
  record: `UPDATE ${TABLE} SET lookup_read_at = $2,
      lookup_claimed_at = CASE WHEN lookup_claimed_at IS NULL OR lookup_claimed_at < $2 THEN $2
        ELSE lookup_claimed_at END,
      lookup_order_status = $3, lookup_payment_status = $4, lookup_failure_code = $5, lookup_completed_at = $6
    WHERE order_id = $1 AND (lookup_read_at IS NULL OR lookup_read_at <= $2)`,
};

function statementsIn(dialect: SqlDialect): typeof LOOKUP_STATEMENTS {
  if (dialect === 'postgres') return LOOKUP_STATEMENTS;
  const entries = Object.entries(LOOKUP_STATEMENTS).map(([name, sql]) => [
    name,
    sql.replace(/\$(\d+)/g, '?$1'),
  ]);
  return Object.fromEntries(entries) as typeof LOOKUP_STATEMENTS;
}

/** The shared lookups of the journal that runs on `executor`. */
export function sqlLookupJournal(executor: LookupExecutor): LookupJournal {
  const sql = statementsIn(executor.dialect);
  return {
    async shareLookup(orderId, { now, freshMs, watchAgainAt }): Promise<SharedLookup> {
      const [row] = (await executor.query(sql.latest, [orderId])) as readonly Partial<LookupColumns>[];
      if (row === undefined) return { kind: 'unknown' };
      const stored = storedLookupOf(row);
      if (stored && isFreshLookup(stored, now, freshMs)) return { kind: 'fresh', stored };
      const claimed = await executor.execute(sql.claim, [orderId, now, now - freshMs, watchAgainAt]);
      return { kind: claimed > 0 ? 'claimed' : 'taken', stored };
    },
    async recordLookup(orderId, lookup) {
      const columns = lookupColumnsOf(lookup);
      const params: SqlValue[] = [
        orderId,
        columns.lookup_read_at,
        columns.lookup_order_status,
        columns.lookup_payment_status,
        columns.lookup_failure_code,
        columns.lookup_completed_at,
      ];
      await executor.execute(sql.record, params);
    },
  };
}
