/**
 * The journal's statements as a store runs them: its dialect's text
 * (dialects/), with the time each statement reads (`{now}`) taken from the
 * database's clock, or bound as one more parameter when a test moves time
 * itself.
 */
import type { JournalDialect, JournalStatementName } from './dialects/dialect.js';
import { NOW } from './dialects/sql-parts.js';

/** Where statements read the time: the database's clock, or a parameter the journal binds from a test's clock. */
export type JournalTimeSource = 'database' | 'parameter';

/** One statement as a store runs it. */
export interface JournalStatement {
  readonly sql: string;
  /** Whether the journal binds its clock's time as the last parameter. */
  readonly takesNow: boolean;
}

/** The journal's statements by name. */
export type JournalStatements = Readonly<Record<JournalStatementName, JournalStatement>>;

/** `sql` with the time read from `source`: the database's clock, or one more parameter after the others. */
function withTime(sql: string, dialect: JournalDialect, source: JournalTimeSource): JournalStatement {
  if (!sql.includes(NOW)) return { sql, takesNow: false };
  if (source === 'database') return { sql: sql.replaceAll(NOW, dialect.databaseNow), takesNow: false };
  const { of, pattern } = dialect.placeholders;
  const last = Math.max(0, ...[...sql.matchAll(pattern)].map((match) => Number(match[1])));
  return { sql: sql.replaceAll(NOW, `CAST(${of(last + 1)} AS ${dialect.integerType})`), takesNow: true };
}

/** `dialect`'s statements, reading the time from `source`. */
export function journalStatements(dialect: JournalDialect, source: JournalTimeSource): JournalStatements {
  const entries = Object.entries(dialect.statements).map(([name, sql]) => [
    name,
    withTime(sql, dialect, source),
  ]);
  return Object.fromEntries(entries) as JournalStatements;
}
