/**
 * What a database must give the journal to hold it: every statement the
 * journal runs, written in that database's own SQL, and the few facts the
 * journal needs to run them (its clock, its placeholders, the integer type a
 * bound time is cast to, the migration steps its SQL writes its own way).
 * Each database is one object of this type (sqlite.ts, postgres.ts), the
 * statements SQLite and PostgreSQL write alike built for both from
 * shared-statements.ts with each one's placeholders; the
 * compiler refuses one that lacks a statement, and test/node/journal/dialects.test.ts
 * names any that an object built otherwise lacks.
 */

/** Every statement the journal runs (sql-journal.ts, sql-lookups.ts, sql-webhooks.ts), by name. */
export const JOURNAL_STATEMENT_NAMES = [
  'insertIntent',
  'releasePrompt',
  'attemptByPrompt',
  'createdWatching',
  'createdSettled',
  'discardIntent',
  'claimDue',
  'claimUndelivered',
  'renewLease',
  'checkedPending',
  'checkedSettled',
  'deferCheck',
  'expired',
  'browserSettled',
  'markDelivered',
  'deliveryFailed',
  'get',
  'listRecent',
  'orderById',
  'ordersByReference',
  'recordAmount',
  'prune',
  'latePaid',
  'expiredOrders',
  'ordersWithin',
  'ordersWithinBefore',
  'claimSweep',
  'finishSweep',
  'lookupLatest',
  'lookupClaim',
  'lookupHold',
  'lookupRecord',
  'insertCheckout',
  'checkoutById',
  'pruneCheckouts',
  'insertWebhookEvent',
  'insertWebhookDelivery',
  'claimWebhookDeliveries',
  'webhookEventById',
  'webhookAttempted',
  'insertWebhookAttempt',
  'disableWebhookEndpoint',
  'eraseWebhookCustomer',
  'eraseHeldWebhookCustomers',
  'webhookEventsRecent',
  'webhookEventsFailed',
  'webhookDeliveriesOf',
  'webhookAttemptsOf',
  'enableReplayedEndpoints',
  'replayWebhookDeliveries',
  'pruneWebhookAttempts',
  'pruneWebhookDeliveries',
  'pruneWebhookEvents',
] as const;

/** The name of one statement the journal runs. */
export type JournalStatementName = (typeof JOURNAL_STATEMENT_NAMES)[number];

/** The migration steps (migrations.ts) each database writes in its own SQL. */
export const MIGRATION_PIECE_NAMES = ['amountsFromCreateBody'] as const;

/** The name of one migration step written per database. */
export type MigrationPieceName = (typeof MIGRATION_PIECE_NAMES)[number];

/**
 * How a database writes the n-th parameter of a statement, and how to find
 * them in one. Parameters are numbered: a statement may read one twice, and
 * the journal binds each value once.
 */
export interface PlaceholderStyle {
  /** The n-th parameter (from 1), e.g. `$1` or `?1`. */
  readonly of: (n: number) => string;
  /** Matches every parameter of a statement, its number in the first group. */
  readonly pattern: RegExp;
}

/** One database the journal runs on: its statements and what the journal needs to run them. */
export interface JournalDialect {
  /** The database, as a journal URL names it. */
  readonly name: string;
  /**
   * Every statement, in this database's SQL and placeholders; `{now}` (sql-parts.ts)
   * where the statement reads the time, replaced by the database's clock or a bound parameter.
   */
  readonly statements: Readonly<Record<JournalStatementName, string>>;
  /** The database's clock in epoch milliseconds, one value for the whole statement. */
  readonly databaseNow: string;
  /** The integer type a time bound as a parameter is cast to. */
  readonly integerType: string;
  /** How the statements write their parameters. */
  readonly placeholders: PlaceholderStyle;
  /** The migration steps this database writes its own way. */
  readonly migrationPieces: Readonly<Record<MigrationPieceName, string>>;
}
