/**
 * What both `openJournal`s share (open-journal.ts on Node, web-journal.ts on
 * web runtimes): the store a journal URL names, the options, and the error of
 * a missing driver. No driver and no `node:` module is imported here.
 */
import type { Clock } from '../../shared/clock.js';

/** The time source a test gives the journal in place of its own. */
export type JournalClock = Pick<Clock, 'now'>;

/** Tuning for `openJournal`; every field has a default. */
export interface OpenJournalOptions {
  /** PostgreSQL connections this process keeps open (default 4). */
  postgresPoolSize?: number;
  /**
   * For tests that move time by hand: the journal stamps times and judges
   * leases by this clock (give it the relay's). By default it keeps its own:
   * PostgreSQL's `now()`, SQLite's clock, this process's for `memory:`.
   */
  clock?: JournalClock;
  /**
   * `false` to open a journal as it is, for a tool that only reads it: no file
   * or table is created and no migration runs; a journal whose schema is not at
   * this pay-checkout's version is refused, with an error naming both versions.
   * Default `true`: created or migrated, as a relay needs it.
   */
  migrate?: boolean;
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

/** The store a journal URL names, with what that store reads of the URL. */
export type JournalLocation =
  | { store: 'memory' }
  | { store: 'sqlite'; path: string }
  | { store: 'postgres'; url: string };

/** Reads a journal URL; a TypeError for a scheme no store has. */
export function locateJournal(url: string): JournalLocation {
  if (url === 'memory:') return { store: 'memory' };
  if (url.startsWith('sqlite:')) return { store: 'sqlite', path: url.slice('sqlite:'.length) };
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return { store: 'postgres', url };
  // The URL itself stays out of the message: it may carry a password.
  throw new TypeError(
    'Unknown journal URL scheme. Use memory:, sqlite:<path> or postgres://user:password@host/database.',
  );
}
