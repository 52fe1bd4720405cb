/**
 * The journal on top of any SQL database: SQLite and PostgreSQL differ only in
 * how they run a statement, make a claim atomic and forget erased bytes, so
 * each store supplies an executor and this module supplies the journal, once.
 */

import { type CheckoutRow, checkoutRowOf, rowToCheckout } from './checkout-row.js';
import type { JournalDialect, JournalStatementName } from './dialects/dialect.js';
import type {
  CheckResult,
  ClaimOptions,
  CreateAnswer,
  CreateIntent,
  DeliveryFailure,
  ExpiredOrder,
  FulfilmentSummary,
  Journal,
  JournalCheckout,
  JournalEntry,
  OrderAmount,
  OrdersWithinOptions,
  PendingEntry,
  ServiceReading,
  SettledEntry,
} from './journal.js';
import { attemptColumns, detailsColumns, readingColumns, rowToAttempt, rowToOrder } from './journal-order.js';
import {
  claimedEntries,
  fulfilmentSummary,
  type JournalRow,
  outcomeOfPaymentStatus,
  rowToEntry,
  shortDeliveryError,
} from './journal-row.js';
import { journalStatements } from './journal-sql.js';
import type { JournalClock } from './journal-url.js';
import { sqlLookupJournal } from './sql-lookups.js';
import { pruneWebhooks, sqlWebhookJournal } from './sql-webhooks.js';

/** A value bound to a statement parameter. */
export type SqlValue = string | number | null;

/** How one store runs the journal's statements. */
export interface SqlExecutor {
  /** The database's SQL: the statements the journal runs on it. */
  readonly dialect: JournalDialect;
  /** Runs a write; resolves with how many rows it changed. */
  execute(sql: string, params: readonly SqlValue[]): Promise<number>;
  /** Runs a read, or a write with `RETURNING`. */
  query(sql: string, params: readonly SqlValue[]): Promise<JournalRow[]>;
  /** Runs a claim so that no two processes can lease the same row. */
  claim(sql: string, params: readonly SqlValue[]): Promise<JournalRow[]>;
  /**
   * Runs `guard`, then, only if it changed a row, `rest`, all in one
   * transaction: a crash or a lost connection leaves all of them or none.
   * Resolves with each one's row count (just the guard's 0 when it changed none).
   */
  executeIfChanged(
    guard: readonly [string, readonly SqlValue[]],
    rest: readonly (readonly [string, readonly SqlValue[]])[],
  ): Promise<number[]>;
  /** Called after a write dropped a customer's details: the store sees that none of its files keeps a copy. */
  erased(): void;
  /** Releases the connection(s). */
  close(): Promise<void>;
}

/** How a statement is run: a write's row count, or the rows read or claimed. */
type Runner = {
  execute(name: JournalStatementName, params: SqlValue[]): Promise<number>;
  query(name: JournalStatementName, params: SqlValue[]): Promise<JournalRow[]>;
  claim(name: JournalStatementName, params: SqlValue[]): Promise<JournalRow[]>;
  executeIfChanged(
    guard: readonly [JournalStatementName, SqlValue[]],
    rest: readonly (readonly [JournalStatementName, SqlValue[]])[],
  ): Promise<number[]>;
  close(): Promise<void>;
};

/** Runs statements by name on `executor`, binding `clock`'s time where a statement reads it; fails plainly once closed. */
function statementRunner(executor: SqlExecutor, clock: JournalClock | undefined): Runner {
  const sql = journalStatements(executor.dialect, clock ? 'parameter' : 'database');
  let closed = false;
  // After close() every call fails plainly, whatever the driver would do with a closed connection.
  const open = () => {
    if (closed) throw new Error('The journal is closed.');
    return executor;
  };
  const bind = (name: JournalStatementName, params: SqlValue[]): [string, SqlValue[]] => {
    const statement = sql[name];
    return [statement.sql, statement.takesNow && clock ? [...params, clock.now()] : params];
  };
  return {
    execute: async (name, params) => open().execute(...bind(name, params)),
    query: async (name, params) => open().query(...bind(name, params)),
    claim: async (name, params) => open().claim(...bind(name, params)),
    executeIfChanged: async (guard, rest) =>
      open().executeIfChanged(
        bind(...guard),
        rest.map((statement) => bind(...statement)),
      ),
    close: async () => {
      if (closed) return;
      closed = true;
      await executor.close();
    },
  };
}

/** A duration as every store binds it: whole milliseconds. */
const ms = (duration: number) => Math.round(duration);

/** A `Journal` that runs on `executor`, on the database's clock unless a test gives its own. */
export function createSqlJournal(executor: SqlExecutor, clock?: JournalClock): Journal {
  const run = statementRunner(executor, clock);
  const changed = async (name: JournalStatementName, params: SqlValue[]) =>
    (await run.execute(name, params)) > 0;
  const erasing = async (name: JournalStatementName, params: SqlValue[]) => {
    const erased = await changed(name, params);
    if (erased) executor.erased();
    return erased;
  };

  return {
    ...recordingSteps(run, erasing),
    discardIntent: (idempotencyKey: string) => erasing('discardIntent', [idempotencyKey]),
    async claimDue(owner: string, { limit, leaseMs }: ClaimOptions) {
      return claimedEntries<PendingEntry>(await run.claim('claimDue', [owner, ms(leaseMs), limit]));
    },
    renewLease: (idempotencyKey: string, owner: string, leaseMs: number) =>
      changed('renewLease', [idempotencyKey, owner, ms(leaseMs)]),
    recordChecked(idempotencyKey: string, owner: string, result: CheckResult) {
      const { paymentStatus, nextCheckInMs } = result;
      const outcome = outcomeOfPaymentStatus(paymentStatus);
      return outcome === null
        ? changed('checkedPending', [idempotencyKey, owner, paymentStatus, ms(nextCheckInMs)])
        : changed('checkedSettled', [idempotencyKey, owner, paymentStatus, outcome, ...reading(result)]);
    },
    deferCheck: (idempotencyKey: string, owner: string, dueInMs: number) =>
      changed('deferCheck', [idempotencyKey, owner, ms(dueInMs)]),
    recordExpired: (idempotencyKey: string, owner: string) => erasing('expired', [idempotencyKey, owner]),
    async settleFromBrowserLookup(
      orderId: string,
      paymentStatus: string,
      read: ServiceReading = {},
      by = '',
    ) {
      const outcome = outcomeOfPaymentStatus(paymentStatus);
      return (
        outcome !== null && changed('browserSettled', [orderId, paymentStatus, outcome, ...reading(read), by])
      );
    },
    ...lateSteps(run, changed),
    async claimUndelivered(owner: string, { limit, leaseMs }: ClaimOptions) {
      return claimedEntries<SettledEntry>(await run.claim('claimUndelivered', [owner, ms(leaseMs), limit]));
    },
    markDelivered: (idempotencyKey: string, owner: string) =>
      changed('markDelivered', [idempotencyKey, owner]),
    recordDeliveryFailure: (idempotencyKey: string, owner: string, { retryInMs, error }: DeliveryFailure) =>
      changed('deliveryFailed', [idempotencyKey, owner, shortDeliveryError(error), ms(retryInMs)]),
    ...reads(run),
    ...checkoutSteps(run),
    prune: async ({ retentionMs }: { retentionMs: number }) =>
      (await run.execute('prune', [ms(retentionMs)])) +
      (await run.execute('pruneCheckouts', [ms(retentionMs)])) +
      (await pruneWebhooks(run)),
    close: () => run.close(),
    ...sqlLookupJournal(run),
    ...sqlWebhookJournal(run, () => executor.erased()),
  };
}

/** Late payments: an expired order paid later, and the fleet's one sweep that finds them. */
function lateSteps(
  run: Runner,
  changed: (name: JournalStatementName, params: SqlValue[]) => Promise<boolean>,
) {
  return {
    recordLatePayment(orderId: string, read: ServiceReading = {}, by = '') {
      const [, currency, value] = reading(read);
      return changed('latePaid', [orderId, 'paid', currency ?? null, value ?? null, by]);
    },
    async ordersWithin({ withinMs, limit, after }: OrdersWithinOptions) {
      const rows = after
        ? await run.query('ordersWithinBefore', [ms(withinMs), limit, after.createdAt, after.idempotencyKey])
        : await run.query('ordersWithin', [ms(withinMs), limit]);
      return rows.map(rowToOrder);
    },
    async expiredOrders({ withinMs, limit }: { withinMs: number; limit: number }): Promise<ExpiredOrder[]> {
      const rows = await run.query('expiredOrders', [ms(withinMs), limit]);
      return rows.map((row) => ({ orderId: row.order_id as string, createdAt: Number(row.created_at) }));
    },
    claimSweep: (owner: string, { leaseMs, everyMs }: { leaseMs: number; everyMs: number }) =>
      changed('claimSweep', [owner, ms(leaseMs), ms(everyMs)]),
    async finishSweep(owner: string, swept: boolean) {
      await run.execute('finishSweep', [owner, swept ? 1 : 0]);
    },
  };
}

/** The checkouts the merchant's server created: recorded once, read by id. */
function checkoutSteps(run: Runner) {
  return {
    async recordCheckout(checkout: JournalCheckout) {
      await run.execute('insertCheckout', Object.values(checkoutRowOf(checkout)) as SqlValue[]);
    },
    async readCheckout(id: string) {
      const [row] = await run.query('checkoutById', [id]);
      return row && rowToCheckout(row as unknown as CheckoutRow);
    },
  };
}

/** A service reading's parameters, in the order the settling statements take them: failure code, total. */
function reading(read: ServiceReading): SqlValue[] {
  const { failure_code, amount_currency, amount_value } = readingColumns(read);
  return [failure_code, amount_currency, amount_value];
}

/** The intent, with what the checkout is for, and the service's answer to it. */
function recordingSteps(
  run: Runner,
  erasing: (name: JournalStatementName, params: SqlValue[]) => Promise<boolean>,
) {
  return {
    async recordIntent(intent: CreateIntent) {
      const { idempotencyKey, createBody, resendInMs, details, issuer, prompt } = intent;
      const { reference, metadata, line_items, amount_currency, amount_value } = detailsColumns(details);
      const { attempt_digest, service_key, prompt_key } = attemptColumns(intent);
      if (prompt) await run.execute('releasePrompt', [prompt.key, ms(prompt.openForMs)]);
      await run.execute('insertIntent', [
        ...[idempotencyKey, JSON.stringify(createBody), ms(resendInMs)],
        ...[reference, metadata, line_items, amount_currency, amount_value, issuer ?? null],
        ...[attempt_digest, service_key, prompt_key],
      ]);
    },
    async recordCreated(idempotencyKey: string, answer: CreateAnswer) {
      const { orderId, paymentStatus, nextCheckInMs } = answer;
      const outcome = outcomeOfPaymentStatus(paymentStatus);
      const [failureCode = null, ...total] = reading(answer);
      if (outcome === null) {
        const params = [idempotencyKey, orderId, paymentStatus, ms(nextCheckInMs), ...total];
        await erasing('createdWatching', params);
      } else {
        await erasing('createdSettled', [
          idempotencyKey,
          orderId,
          paymentStatus,
          outcome,
          failureCode,
          ...total,
        ]);
      }
    },
  };
}

/** The journal's reads: entries, the demo's list, and orders with what they were for. */
function reads(run: Runner) {
  return {
    async get(idempotencyKey: string): Promise<JournalEntry | undefined> {
      const [row] = await run.query('get', [idempotencyKey]);
      return row && rowToEntry(row);
    },
    async readAttempt(by: { idempotencyKey: string } | { promptKey: string }) {
      const [row] =
        'promptKey' in by
          ? await run.query('attemptByPrompt', [by.promptKey])
          : await run.query('get', [by.idempotencyKey]);
      return row && rowToAttempt(row);
    },
    async listRecent(limit: number): Promise<FulfilmentSummary[]> {
      return (await run.query('listRecent', [limit])).map(fulfilmentSummary);
    },
    async readOrder(by: { orderId: string } | { idempotencyKey: string }) {
      const [row] =
        'orderId' in by
          ? await run.query('orderById', [by.orderId])
          : await run.query('get', [by.idempotencyKey]);
      return row && rowToOrder(row);
    },
    async ordersByReference(reference: string, limit: number) {
      return (await run.query('ordersByReference', [reference, limit])).map(rowToOrder);
    },
    async recordAmount(idempotencyKey: string, { currency, value }: OrderAmount) {
      return (await run.execute('recordAmount', [idempotencyKey, currency, value])) > 0;
    },
  };
}
