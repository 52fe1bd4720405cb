/**
 * The journal in one SQLite file: the embedded default for one server
 * (`sqlite:<path>`). The binding is passed in by `openJournal`, which imports
 * it only when a merchant asks for SQLite; this module names no package.
 *
 * Durability: WAL with `synchronous = FULL` syncs every commit to disk before
 * the statement returns, so the intent is on disk before the service is
 * called, through a crash of the process or of the machine. A commit costs
 * about a millisecond, beside a create that crosses the network.
 *
 * Privacy: `secure_delete` zeroes the bytes a dropped create body leaves in
 * the file, but the write-ahead log keeps every page written since it was
 * last reset, the body's included. So after each such write the log is
 * folded into the file and truncated to nothing (log-eraser.ts), soon after
 * and always before the next claim: by the time an order is delivered no
 * file holds its customer's name or number.
 */
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { sqlite } from './dialects/sqlite.js';
import type { Journal } from './journal.js';
import type { JournalRow } from './journal-row.js';
import type { JournalClock } from './journal-url.js';
import { type LogEraser, startLogEraser } from './log-eraser.js';
import {
  CREATE_MIGRATIONS_TABLE,
  JournalVersionError,
  MIGRATIONS_TABLE,
  migrationStatements,
  pendingMigrations,
  requireLatestVersion,
} from './migrations.js';
import { createSqlJournal, type SqlExecutor, type SqlValue } from './sql-journal.js';

/** A prepared statement, as `libsql` and `better-sqlite3` both offer it. */
export interface SqliteStatement {
  run(...params: SqlValue[]): { changes: number | bigint };
  all(...params: SqlValue[]): unknown[];
  get(...params: SqlValue[]): unknown;
}

/** A synchronous SQLite connection, as `libsql` and `better-sqlite3` both offer it. */
export interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
  exec(sql: string): unknown;
  close(): unknown;
}

/** Opens a connection to a file: the binding's `Database` constructor. */
export type SqliteDriver = new (path: string, options?: { timeout?: number }) => SqliteConnection;

/** How long a process waits for another's write to finish before it reports the file busy. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * Creates the folder and the file readable by this user only: until the
 * service answers, a row holds the customer's name and number.
 */
function createPrivateFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  closeSync(openSync(path, 'a', 0o600));
}

/** Runs `work` in a write transaction taken up front, so two processes never both read then write. */
function immediately<T>(connection: SqliteConnection, work: () => T): T {
  // A deferred transaction that reads and then writes fails with
  // SQLITE_BUSY_SNAPSHOT when another process wrote in between; BEGIN
  // IMMEDIATE instead waits (busy_timeout) for the write lock before reading.
  connection.exec('BEGIN IMMEDIATE');
  try {
    const result = work();
    connection.exec('COMMIT');
    return result;
  } catch (error) {
    connection.exec('ROLLBACK');
    throw error;
  }
}

function migrate(connection: SqliteConnection): void {
  immediately(connection, () => {
    connection.exec(CREATE_MIGRATIONS_TABLE);
    const applied = connection.prepare(`SELECT MAX(version) AS version FROM ${MIGRATIONS_TABLE}`).get() as {
      version: number | null;
    };
    for (const migration of pendingMigrations(applied.version ?? 0)) {
      for (const statement of migrationStatements(migration, 'sqlite')) connection.exec(statement);
      connection
        .prepare(`INSERT INTO ${MIGRATIONS_TABLE} (version, description, applied_at) VALUES (?1, ?2, ?3)`)
        .run(migration.version, migration.description, Date.now());
    }
  });
}

/** The version the file's schema is at, without creating anything; 0 when it holds no journal. */
function appliedVersion(connection: SqliteConnection): number {
  const table = connection
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?1")
    .get(MIGRATIONS_TABLE);
  if (!table) return 0;
  const applied = connection.prepare(`SELECT MAX(version) AS version FROM ${MIGRATIONS_TABLE}`).get() as {
    version: number | null;
  };
  return applied.version ?? 0;
}

function sqliteExecutor(connection: SqliteConnection, eraser: LogEraser): SqlExecutor {
  // Statements are prepared once and reused: the journal runs the same few all day.
  const prepared = new Map<string, SqliteStatement>();
  const statement = (sql: string) => {
    let cached = prepared.get(sql);
    if (!cached) {
      cached = connection.prepare(sql);
      prepared.set(sql, cached);
    }
    return cached;
  };
  return {
    dialect: sqlite,
    execute: async (sql, params) => Number(statement(sql).run(...params).changes),
    query: async (sql, params) => statement(sql).all(...params) as JournalRow[],
    claim: async (sql, params) => {
      // A claim may lead to a callback: the log holds no erased details by then.
      eraser.flush();
      return immediately(connection, () => statement(sql).all(...params) as JournalRow[]);
    },
    executeIfChanged: async ([guardSql, guardParams], rest) =>
      immediately(connection, () => {
        const changed = Number(statement(guardSql).run(...guardParams).changes);
        if (changed === 0) return [0];
        return [changed, ...rest.map(([sql, params]) => Number(statement(sql).run(...params).changes))];
      }),
    erased: () => eraser.erased(),
    close: async () => {
      // libsql closes the file only once its statements are garbage-collected,
      // so the log is folded into the file now: after close() the file alone
      // holds everything, and the log is empty (unless another process is
      // reading it, whose own close will). A disk that fails still lets go.
      try {
        eraser.stop();
      } finally {
        prepared.clear();
        connection.close();
      }
    },
  };
}

/**
 * Opens (and creates or migrates) the journal in the SQLite file at `path`
 * (relative to the working directory), on SQLite's clock unless a test gives its own.
 */
export function openSqliteJournal(
  relativePath: string,
  Driver: SqliteDriver,
  clock?: JournalClock,
  migrating = true,
): Journal {
  const path = resolve(relativePath);
  if (migrating) createPrivateFile(path);
  else if (!existsSync(path)) throw new JournalVersionError(0);
  const connection = new Driver(path, { timeout: BUSY_TIMEOUT_MS });
  try {
    connection.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    connection.exec('PRAGMA journal_mode = WAL');
    connection.exec('PRAGMA synchronous = FULL');
    // Freed space is zeroed, so the customer details a row held before the
    // service answered do not linger in the file's free pages.
    connection.exec('PRAGMA secure_delete = ON');
    if (migrating) migrate(connection);
    else requireLatestVersion(appliedVersion(connection));
  } catch (error) {
    connection.close();
    throw error;
  }
  return createSqlJournal(sqliteExecutor(connection, startLogEraser(connection, BUSY_TIMEOUT_MS)), clock);
}
