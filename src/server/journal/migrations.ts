/**
 * The journal's schema, versioned. Each store applies the migrations its
 * database has not seen, in one transaction at open, and records each version
 * in `pay_checkout_journal_migrations`; a database newer than this library is
 * refused rather than written with the wrong assumptions.
 *
 * Migrations are append-only: a released one is never edited, a change is a new
 * version. The same SQL serves every database unless a step names a piece
 * each database writes its own way (its dialect's `migrationPieces`).
 */
import type { MigrationPieceName } from './dialects/dialect.js';
import { JOURNAL_DIALECTS, type SqlDialect } from './dialects/journal-dialects.js';

/** One schema step. */
export interface JournalMigration {
  version: number;
  /** What the step does, for whoever reads the migrations table. */
  description: string;
  /** The statements, in order; a piece each database writes its own way where they differ. */
  statements: readonly (string | { readonly piece: MigrationPieceName })[];
}

/** The table of applied versions. */
export const MIGRATIONS_TABLE = 'pay_checkout_journal_migrations';

/** Creates the table of applied versions; safe to run every time. */
export const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (
  version INTEGER PRIMARY KEY,
  description TEXT NOT NULL,
  applied_at BIGINT NOT NULL
)`;

/** Every schema step so far. */
export const JOURNAL_MIGRATIONS: readonly JournalMigration[] = [
  {
    version: 1,
    description: 'One journal row per checkout attempt, with leases for the fleet',
    statements: [
      // BIGINT times are epoch milliseconds in both databases. The last CHECK is
      // the privacy promise: only an unanswered create holds the
      // customer's name and number.
      `CREATE TABLE pay_checkout_journal (
        idempotency_key TEXT PRIMARY KEY,
        phase TEXT NOT NULL CHECK (phase IN ('creating', 'watching', 'settled')),
        create_body TEXT,
        order_id TEXT UNIQUE,
        payment_status TEXT,
        outcome TEXT CHECK (outcome IN ('paid', 'failed', 'expired')),
        created_at BIGINT NOT NULL,
        due_at BIGINT,
        settled_at BIGINT,
        delivered_at BIGINT,
        delivery_attempts INTEGER NOT NULL DEFAULT 0,
        last_delivery_error TEXT,
        lease_owner TEXT,
        lease_expires_at BIGINT,
        CHECK (create_body IS NULL OR phase = 'creating')
      )`,
      // The watcher's and the deliverer's claims each scan only their own rows, due first.
      `CREATE INDEX pay_checkout_journal_pending ON pay_checkout_journal (due_at)
        WHERE phase IN ('creating', 'watching')`,
      `CREATE INDEX pay_checkout_journal_undelivered ON pay_checkout_journal (due_at)
        WHERE phase = 'settled' AND delivered_at IS NULL`,
      'CREATE INDEX pay_checkout_journal_recent ON pay_checkout_journal (created_at)',
      `CREATE INDEX pay_checkout_journal_delivered ON pay_checkout_journal (delivered_at)
        WHERE delivered_at IS NOT NULL`,
    ],
  },
  {
    version: 2,
    description: 'What was paid for and for whom: reference, metadata, line items, amount, failure code',
    statements: [
      // Not personal data: kept, unlike the create body, until the row is pruned.
      'ALTER TABLE pay_checkout_journal ADD COLUMN reference TEXT',
      'ALTER TABLE pay_checkout_journal ADD COLUMN metadata TEXT',
      'ALTER TABLE pay_checkout_journal ADD COLUMN line_items TEXT',
      'ALTER TABLE pay_checkout_journal ADD COLUMN amount_currency TEXT',
      'ALTER TABLE pay_checkout_journal ADD COLUMN amount_value BIGINT',
      'ALTER TABLE pay_checkout_journal ADD COLUMN failure_code TEXT',
      `CREATE INDEX pay_checkout_journal_reference ON pay_checkout_journal (reference, created_at)
        WHERE reference IS NOT NULL`,
      // An unanswered create still holds its body: its line items and their total are known.
      // Orders already created kept none; their amount is read from the service when delivered.
      // Each database reads JSON its own way (dialects/).
      { piece: 'amountsFromCreateBody' },
    ],
  },
  {
    version: 3,
    description: "Each order's latest lookup, so that a fleet shares one service lookup per order",
    // Statuses, the amount charged and times only (lookup-journal.ts): nothing a customer typed.
    // One column per statement: SQLite adds one at a time.
    statements: [
      'lookup_claimed_at BIGINT',
      'lookup_read_at BIGINT',
      'lookup_order_status TEXT',
      'lookup_payment_status TEXT',
      'lookup_failure_code TEXT',
      'lookup_completed_at TEXT',
      'lookup_amount_currency TEXT',
      'lookup_amount_value BIGINT',
    ].map((column) => `ALTER TABLE pay_checkout_journal ADD COLUMN ${column}`),
  },
  {
    version: 4,
    description:
      "Each checkout's mobile-money network, so that a retry's recall answers the same shopper only",
    // The issuer code (mtn, telecel, at), neither a name nor a number: kept, unlike the create
    // body, for the row's life. Rows journalled before have none.
    statements: ['ALTER TABLE pay_checkout_journal ADD COLUMN issuer TEXT'],
  },
  {
    version: 5,
    description:
      "Each attempt's keyed digest and service key, and the open prompt of one checkout to one number",
    // Keyed HMACs (tokens/attempt-digest.ts), neither a name nor a number: kept for the row's life,
    // so a retry with another cart or shopper is told apart after the create body is gone. A prompt
    // key is held by one row at a time; a create for the same checkout and number releases it from a
    // settled row or one past its approval window before it records its own.
    statements: [
      'ALTER TABLE pay_checkout_journal ADD COLUMN attempt_digest TEXT',
      'ALTER TABLE pay_checkout_journal ADD COLUMN service_key TEXT',
      'ALTER TABLE pay_checkout_journal ADD COLUMN prompt_key TEXT',
      `CREATE UNIQUE INDEX pay_checkout_journal_prompt ON pay_checkout_journal (prompt_key)
        WHERE prompt_key IS NOT NULL`,
    ],
  },
  {
    version: 6,
    description:
      'Late payments: an expired order paid later is owed onPaid, and one sweep of the service at a time',
    statements: [
      // 'expired' on an order paid after the relay had settled it expired; NULL otherwise.
      'ALTER TABLE pay_checkout_journal ADD COLUMN previous_outcome TEXT',
      // The sweep reads the expired orders only, oldest first: the oldest bounds how far back it pages.
      `CREATE INDEX pay_checkout_journal_expired ON pay_checkout_journal (created_at)
        WHERE outcome = 'expired'`,
      // One row: which process sweeps now (a lease, as on orders) and when the last sweep began.
      `CREATE TABLE pay_checkout_journal_sweep (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        lease_owner TEXT,
        lease_expires_at BIGINT,
        swept_at BIGINT
      )`,
      'INSERT INTO pay_checkout_journal_sweep (id) VALUES (1)',
    ],
  },
  {
    version: 7,
    description:
      "Checkouts the merchant's server created: what they sell, until when, and their secret's digest",
    statements: [
      // The client secret is kept as a keyed digest only (tokens/checkout-secret.ts): the file
      // cannot pay a checkout. Nothing personal: the merchant's items, reference and notes.
      `CREATE TABLE pay_checkout_checkouts (
        id TEXT PRIMARY KEY,
        secret_digest TEXT NOT NULL,
        reference TEXT NOT NULL,
        line_items TEXT NOT NULL,
        metadata TEXT NOT NULL,
        amount_currency TEXT NOT NULL,
        amount_value BIGINT NOT NULL,
        origin TEXT,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
      )`,
      // Pruning reads the checkouts long expired, oldest first.
      'CREATE INDEX pay_checkout_checkouts_expires ON pay_checkout_checkouts (expires_at)',
    ],
  },
];

/** The newest version this library knows. */
export const LATEST_JOURNAL_VERSION = JOURNAL_MIGRATIONS.reduce(
  (latest, step) => Math.max(latest, step.version),
  0,
);

/** The statements of a step in one dialect. */
export function migrationStatements(migration: JournalMigration, dialect: SqlDialect): string[] {
  const { migrationPieces } = JOURNAL_DIALECTS[dialect];
  return migration.statements.map((statement) =>
    typeof statement === 'string' ? statement : migrationPieces[statement.piece],
  );
}

/** The steps a database at `appliedVersion` still needs, oldest first; throws if it is newer than this library. */
export function pendingMigrations(appliedVersion: number): JournalMigration[] {
  if (appliedVersion > LATEST_JOURNAL_VERSION) {
    throw new Error(
      `The journal's schema is at version ${appliedVersion}, newer than this pay-checkout knows ` +
        `(${LATEST_JOURNAL_VERSION}). Upgrade pay-checkout on every process that shares the journal.`,
    );
  }
  return JOURNAL_MIGRATIONS.filter((step) => step.version > appliedVersion).sort(
    (a, b) => a.version - b.version,
  );
}

/** A journal whose schema is not at the version this pay-checkout reads, opened without migrating it. */
export class JournalVersionError extends Error {
  override name = 'JournalVersionError';
  /** The version the journal's schema is at; 0 when it holds no journal. */
  readonly journalVersion: number;

  constructor(journalVersion: number) {
    super(
      journalVersion === 0
        ? 'There is no pay-checkout journal there: give the URL the relay uses.'
        : `The journal's schema is at version ${journalVersion}; this pay-checkout reads version ${LATEST_JOURNAL_VERSION} ` +
            'and does not migrate it here. Use the pay-checkout the relay runs, or let the relay migrate the journal first.',
    );
    this.journalVersion = journalVersion;
  }
}

/** Throws a {@link JournalVersionError} unless `appliedVersion` is the one this library knows. */
export function requireLatestVersion(appliedVersion: number): void {
  if (appliedVersion !== LATEST_JOURNAL_VERSION) throw new JournalVersionError(appliedVersion);
}
