/**
 * The journal in PostgreSQL (`postgres://…`): any number of relay processes
 * share it. Claims lease rows with `FOR UPDATE SKIP LOCKED`, so concurrent
 * watchers take disjoint sets without waiting on each other, and a dead
 * process's rows are claimable again once its leases run out. Every time is
 * PostgreSQL's `now()`, so the fleet shares one clock whatever each
 * process's says.
 *
 * The `pg` module is passed in by `openJournal`, which imports it only when a
 * merchant asks for PostgreSQL; here it is named for its types alone.
 */
import type { Pool, PoolClient, PoolConfig } from 'pg';
import { postgres } from './dialects/postgres.js';
import type { Journal } from './journal.js';
import type { JournalRow } from './journal-row.js';
import type { JournalClock } from './journal-url.js';
import {
  CREATE_MIGRATIONS_TABLE,
  MIGRATIONS_TABLE,
  migrationStatements,
  pendingMigrations,
  requireLatestVersion,
} from './migrations.js';
import { createSqlJournal, type SqlExecutor } from './sql-journal.js';

/** The `pg` pool constructor. */
export type PostgresPoolDriver = new (config: PoolConfig) => Pool;

/** How many connections one relay process keeps to the journal for shoppers' requests unless told otherwise. */
export const DEFAULT_POSTGRES_POOL_SIZE = 4;
/** Connections of the watcher's and the deliveries' own, beside the requests': they never take those. */
export const WATCHER_POOL_SIZE = 2;
/** How long a query waits for a connection (from the pool, or a new one) before it fails. */
export const POSTGRES_CONNECT_TIMEOUT_MS = 5_000;
/**
 * How long a query may run: the server stops it (`statement_timeout`), and
 * the client gives up on a server that does not answer at all (a frozen
 * host, a network cut without a reset) and drops the connection.
 */
export const POSTGRES_QUERY_TIMEOUT_MS = 5_000;

/** The advisory lock that lets one process at a time migrate the schema ('pay_jnl' in ASCII). */
const MIGRATION_LOCK = '31632478412172908';
async function migrate(pool: Pool): Promise<void> {
  await inTransaction(pool, async (client) => {
    // Held until COMMIT: processes that open at once migrate one after the
    // other, and the later ones find nothing left to do.
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(CREATE_MIGRATIONS_TABLE);
    const applied = await client.query<{ version: number | null }>(
      `SELECT MAX(version) AS version FROM ${MIGRATIONS_TABLE}`,
    );
    for (const migration of pendingMigrations(applied.rows[0]?.version ?? 0)) {
      for (const statement of migrationStatements(migration, 'postgres')) await client.query(statement);
      await client.query(
        `INSERT INTO ${MIGRATIONS_TABLE} (version, description, applied_at) VALUES ($1, $2, $3)`,
        [migration.version, migration.description, Date.now()],
      );
    }
  });
}

/**
 * Runs `work` on one connection between BEGIN and COMMIT, rolled back if it
 * throws. A connection that fails while it is taken from the pool reports it
 * on itself, not on the pool: without a listener that would crash the relay.
 * One that failed is closed rather than given back.
 */
async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const lost = (_error: Error) => {};
  client.on('error', lost);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    client.removeListener('error', lost);
    client.release();
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    // The listener stays: a closing connection may still report.
    client.release(true);
    throw error;
  }
}

/** Throws a `JournalVersionError` unless the database's journal is at this library's version; creates nothing. */
async function checkVersion(pool: Pool): Promise<void> {
  const table = await pool.query<{ found: string | null }>('SELECT to_regclass($1)::text AS found', [
    MIGRATIONS_TABLE,
  ]);
  if (!table.rows[0]?.found) return requireLatestVersion(0);
  const applied = await pool.query<{ version: number | null }>(
    `SELECT MAX(version) AS version FROM ${MIGRATIONS_TABLE}`,
  );
  requireLatestVersion(applied.rows[0]?.version ?? 0);
}

function postgresExecutor(pool: Pool): SqlExecutor {
  return {
    dialect: postgres,
    execute: async (sql, params) => (await pool.query(sql, [...params])).rowCount ?? 0,
    query: async (sql, params) => (await pool.query<JournalRow>(sql, [...params])).rows,
    // One statement is one transaction: SKIP LOCKED makes it exclusive across the fleet.
    claim: async (sql, params) => (await pool.query<JournalRow>(sql, [...params])).rows,
    executeIfChanged: ([guardSql, guardParams], rest) =>
      inTransaction(pool, async (client) => {
        const changed = (await client.query(guardSql, [...guardParams])).rowCount ?? 0;
        const counts = [changed];
        if (changed > 0)
          for (const [sql, params] of rest) counts.push((await client.query(sql, [...params])).rowCount ?? 0);
        return counts;
      }),
    // A dropped row version stays until vacuum; no file is under the journal's own control.
    erased: () => undefined,
    // The journal closes both its pools itself, once.
    close: async () => undefined,
  };
}

/** A pool of `max` connections whose every wait is bounded: a silent database fails a query, never holds it. */
function boundedPool(
  PoolDriver: PostgresPoolDriver,
  connectionString: string,
  max: number,
  role: string,
): Pool {
  const pool = new PoolDriver({
    connectionString,
    max,
    application_name: `pay-checkout journal (${role})`,
    connectionTimeoutMillis: POSTGRES_CONNECT_TIMEOUT_MS,
    query_timeout: POSTGRES_QUERY_TIMEOUT_MS,
    statement_timeout: POSTGRES_QUERY_TIMEOUT_MS,
    keepAlive: true,
  });
  // An idle connection that drops (a database restart, a network cut) is
  // reported here; without a listener it would crash the relay. The next
  // query opens a new connection, and a watcher that fails simply retries.
  pool.on('error', () => {});
  return pool;
}

/**
 * Opens (and creates or migrates) the journal in the PostgreSQL database at
 * `connectionString`, on its clock unless a test gives one: `poolSize`
 * connections for shoppers' requests, and the watcher's own
 * (`watcherConnections()`), so a busy or slow watcher never leaves a
 * request waiting for a connection.
 */
export async function openPostgresJournal(
  connectionString: string,
  PoolDriver: PostgresPoolDriver,
  poolSize = DEFAULT_POSTGRES_POOL_SIZE,
  clock?: JournalClock,
  migrating = true,
): Promise<Journal> {
  // Migrating has no time limit: a large table's change, or another process migrating first, takes what it takes.
  const migrationPool = new PoolDriver({
    connectionString,
    max: 1,
    application_name: 'pay-checkout journal (migration)',
  });
  migrationPool.on('error', () => {});
  try {
    await (migrating ? migrate(migrationPool) : checkVersion(migrationPool));
  } finally {
    await migrationPool.end();
  }
  const requestPool = boundedPool(PoolDriver, connectionString, poolSize, 'requests');
  const watcherPool = boundedPool(PoolDriver, connectionString, WATCHER_POOL_SIZE, 'watcher');
  const endPools = () => Promise.all([requestPool.end(), watcherPool.end()]).then(() => undefined);
  const requests = createSqlJournal(postgresExecutor(requestPool), clock);
  const watcher = createSqlJournal(postgresExecutor(watcherPool), clock);
  let closing: Promise<void> | undefined;
  // Either view closes both, once: from then on every call of either fails plainly.
  const close = () => {
    closing ??= Promise.all([requests.close(), watcher.close()]).then(endPools);
    return closing;
  };
  const forWatcher: Journal = { ...watcher, close };
  return { ...requests, close, watcherConnections: () => forWatcher };
}
