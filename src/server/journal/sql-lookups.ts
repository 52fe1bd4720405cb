/**
 * Shared lookups (lookup-journal.ts) on the SQL stores. A lookup reads the
 * order's latest status first (a read, cheap in both databases); only a stale
 * one leads to a write, the claim, whose WHERE lets one lookup per order
 * through in any window, across every process on the database: PostgreSQL
 * re-checks it on the row it locked, SQLite runs writers one at a time. The
 * statements (dialects/) read the journal's own time.
 */
import type { JournalStatementName } from './dialects/dialect.js';
import {
  type CreatedColumns,
  createdLookupOf,
  isFreshLookup,
  type LookupColumns,
  type LookupJournal,
  type SharedLookup,
  storedLookupOf,
} from './lookup-journal.js';

/** A value bound to a statement parameter. */
type SqlValue = string | number | null;

/** How the journal runs its statements by name (sql-journal.ts), binding its time where they read it. */
export interface LookupRunner {
  execute(name: JournalStatementName, params: SqlValue[]): Promise<number>;
  query(name: JournalStatementName, params: SqlValue[]): Promise<readonly object[]>;
}

/** A duration as every store binds it: whole milliseconds. */
const ms = (duration: number) => Math.round(duration);

/** The shared lookups of the journal that runs its statements through `run`. */
export function sqlLookupJournal(run: LookupRunner): LookupJournal {
  return {
    async shareLookup(orderId, { freshMs, watchAgainInMs }): Promise<SharedLookup> {
      const [row] = (await run.query('lookupLatest', [orderId])) as readonly Partial<LookupColumns>[];
      if (row === undefined) return { kind: 'unknown' };
      const stored = storedLookupOf(row);
      if (stored && isFreshLookup(stored, freshMs)) return { kind: 'fresh', stored };
      const claimed = await run.execute('lookupClaim', [orderId, ms(freshMs), ms(watchAgainInMs)]);
      if (claimed > 0) return { kind: 'claimed', stored };
      const created = row as Partial<LookupColumns> & CreatedColumns & { created_age_ms: number | string };
      return { kind: 'taken', stored: stored ?? createdLookupOf(created, Number(created.created_age_ms)) };
    },
    async holdLookupClaim(orderId) {
      await run.execute('lookupHold', [orderId]);
    },
    async recordLookup(orderId, { statuses, sinceReadMs }) {
      const { orderStatus, paymentStatus, failureCode, completedAt, amount } = statuses;
      await run.execute('lookupRecord', [
        ...[orderId, ms(sinceReadMs), orderStatus, paymentStatus, failureCode, completedAt],
        ...[amount?.currency ?? null, amount?.value ?? null],
      ]);
    },
  };
}
