/**
 * `openJournal(url)` on Node: picks the store from the URL and loads its
 * driver only then, so a merchant on `memory:` or `sqlite:` never loads `pg`,
 * and one on PostgreSQL never loads a SQLite binding. Both drivers are
 * optional peer dependencies of pay-checkout: the merchant installs the one
 * they use. The stores' own modules are imported the same way, when opened.
 * Web runtimes get web-journal.ts instead, where only `memory:` opens.
 */

import type { SqlDialect } from './dialects/journal-dialects.js';
import type { Journal } from './journal.js';
import {
  JournalDriverMissingError,
  type JournalLocation,
  locateJournal,
  type OpenJournalOptions,
} from './journal-url.js';
import { MemoryJournal } from './memory-journal.js';
import type { PostgresPoolDriver } from './postgres-journal.js';
import type { SqliteDriver } from './sqlite-journal.js';

export { JournalDriverMissingError, type OpenJournalOptions } from './journal-url.js';

function isMissingPackage(error: unknown, packageName: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  // Only the package itself missing, not a module it failed to load in turn.
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    typeof message === 'string' &&
    message.includes(`'${packageName}'`)
  );
}

/** Imports an optional driver, or explains which package to install. */
export async function importDriver(packageName: string, scheme: string): Promise<Record<string, unknown>> {
  try {
    // A specifier in a variable: bundlers leave the driver (and its native
    // binary) to Node instead of pulling it into the merchant's bundle.
    return (await import(packageName)) as Record<string, unknown>;
  } catch (error) {
    if (isMissingPackage(error, packageName))
      throw new JournalDriverMissingError(packageName, scheme, { cause: error });
    throw error;
  }
}

async function openSqlite(path: string, options: OpenJournalOptions): Promise<Journal> {
  if (path === '')
    throw new TypeError('Give the SQLite journal a file: sqlite:<path>, e.g. sqlite:.data/pay-checkout.db');
  const driver = await importDriver('libsql', 'sqlite:');
  const { openSqliteJournal } = await import('./sqlite-journal.js');
  // libsql is CommonJS: its constructor is the default export.
  return openSqliteJournal(path, driver.default as SqliteDriver, options.clock, options.migrate ?? true);
}

async function openPostgres(url: string, options: OpenJournalOptions): Promise<Journal> {
  const driver = await importDriver('pg', 'postgres://');
  const Pool = (driver.Pool ??
    (driver.default as { Pool?: unknown } | undefined)?.Pool) as PostgresPoolDriver;
  const { openPostgresJournal } = await import('./postgres-journal.js');
  return openPostgresJournal(url, Pool, options.postgresPoolSize, options.clock, options.migrate ?? true);
}

/** How each database's journal opens at its location: the compiler asks for one per dialect (dialects/). */
const OPENERS: {
  readonly [Store in SqlDialect]: (
    location: Extract<JournalLocation, { store: Store }>,
    options: OpenJournalOptions,
  ) => Promise<Journal>;
} = {
  sqlite: ({ path }, options) => openSqlite(path, options),
  postgres: ({ url }, options) => openPostgres(url, options),
};

/**
 * Opens the journal at `url`: `memory:`, `sqlite:<path>` (relative to the
 * working directory; the folder is created) or `postgres://…`/`postgresql://…`.
 * The schema is created or migrated before the promise resolves (unless
 * `migrate: false`: then checked, and refused at another version). Node only
 * for `sqlite:` and `postgres://`: on web runtimes, whose bundlers take the
 * package's web entry, only `memory:` opens and the others reject.
 */
export async function openJournal(url: string, options: OpenJournalOptions = {}): Promise<Journal> {
  const location = locateJournal(url);
  if (location.store === 'memory') return new MemoryJournal(options.clock);
  if (location.store === 'sqlite') return OPENERS.sqlite(location, options);
  return OPENERS.postgres(location, options);
}
