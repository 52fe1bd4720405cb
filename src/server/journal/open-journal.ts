/**
 * `openJournal(url)`: picks the store from the URL and loads its driver only
 * then, so a merchant on `memory:` or `sqlite:` never loads `pg`, and one on
 * PostgreSQL never loads a SQLite binding. Both drivers are optional peer
 * dependencies of pay-checkout: the merchant installs the one they use.
 *
 * The stores themselves are imported the same way: `pay-checkout/server` runs
 * on edge runtimes too, and the SQLite store needs `node:fs`, which they lack.
 */
import type { Journal } from './journal.js';
import { MemoryJournal } from './memory-journal.js';
import type { PostgresPoolDriver } from './postgres-journal.js';
import type { SqliteDriver } from './sqlite-journal.js';

/** Tuning for `openJournal`; every field has a default. */
export interface OpenJournalOptions {
  /** PostgreSQL connections this process keeps open (default 4). */
  postgresPoolSize?: number;
}

/** The driver a journal URL needs is not installed. */
export class JournalDriverMissingError extends Error {
  override name = 'JournalDriverMissingError';
  /** The npm package to install. */
  readonly packageName: string;

  constructor(packageName: string, scheme: string, options?: ErrorOptions) {
    super(`A ${scheme} journal needs the ${packageName} package: npm install ${packageName}`, options);
    this.packageName = packageName;
  }
}

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

async function openSqlite(path: string): Promise<Journal> {
  if (path === '')
    throw new TypeError('Give the SQLite journal a file: sqlite:<path>, e.g. sqlite:.data/pay-checkout.db');
  const driver = await importDriver('libsql', 'sqlite:');
  const { openSqliteJournal } = await import('./sqlite-journal.js');
  // libsql is CommonJS: its constructor is the default export.
  return openSqliteJournal(path, driver.default as SqliteDriver);
}

async function openPostgres(url: string, options: OpenJournalOptions): Promise<Journal> {
  const driver = await importDriver('pg', 'postgres://');
  const Pool = (driver.Pool ??
    (driver.default as { Pool?: unknown } | undefined)?.Pool) as PostgresPoolDriver;
  const { openPostgresJournal } = await import('./postgres-journal.js');
  return openPostgresJournal(url, Pool, options.postgresPoolSize);
}

/**
 * Opens the journal at `url`: `memory:`, `sqlite:<path>` (relative to the
 * working directory; the folder is created) or `postgres://…`/`postgresql://…`.
 * The schema is created or migrated before the promise resolves.
 */
export async function openJournal(url: string, options: OpenJournalOptions = {}): Promise<Journal> {
  if (url === 'memory:') return new MemoryJournal();
  if (url.startsWith('sqlite:')) return openSqlite(url.slice('sqlite:'.length));
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return openPostgres(url, options);
  // The URL itself stays out of the message: it may carry a password.
  throw new TypeError(
    'Unknown journal URL scheme. Use memory:, sqlite:<path> or postgres://user:password@host/database.',
  );
}
