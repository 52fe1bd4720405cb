/**
 * The journal on top of any SQL database: SQLite and PostgreSQL differ only in
 * how they run a statement and make a claim atomic, so each store supplies an
 * executor and this module supplies the journal, once.
 */
import type {
  CheckResult,
  ClaimOptions,
  CreateAnswer,
  CreateIntent,
  DeliveryFailure,
  FulfilmentSummary,
  Journal,
  JournalEntry,
  OrderAmount,
  PendingEntry,
  ServiceReading,
  SettledEntry,
} from './journal.js';
import { detailsColumns, readingColumns, rowToOrder } from './journal-order.js';
import {
  claimedEntries,
  fulfilmentSummary,
  type JournalRow,
  outcomeOfPaymentStatus,
  rowToEntry,
  shortDeliveryError,
} from './journal-row.js';
import { type JournalStatements, journalStatements } from './journal-sql.js';
import type { SqlDialect } from './migrations.js';

/** A value bound to a statement parameter. */
export type SqlValue = string | number | null;

/** How one store runs the journal's statements. */
export interface SqlExecutor {
  readonly dialect: SqlDialect;
  /** Runs a write; resolves with how many rows it changed. */
  execute(sql: string, params: readonly SqlValue[]): Promise<number>;
  /** Runs a read, or a write with `RETURNING`. */
  query(sql: string, params: readonly SqlValue[]): Promise<JournalRow[]>;
  /** Runs a claim so that no two processes can lease the same row. */
  claim(sql: string, params: readonly SqlValue[]): Promise<JournalRow[]>;
  /** Releases the connection(s). */
  close(): Promise<void>;
}

/** A `Journal` that runs on `executor`. */
export function createSqlJournal(openExecutor: SqlExecutor): Journal {
  const sql = journalStatements(openExecutor.dialect);
  let closed = false;
  // After close() every call fails plainly, whatever the driver would do with a closed connection.
  const executor: SqlExecutor = {
    dialect: openExecutor.dialect,
    execute: async (statement, params) => open().execute(statement, params),
    query: async (statement, params) => open().query(statement, params),
    claim: async (statement, params) => open().claim(statement, params),
    close: async () => {
      if (closed) return;
      closed = true;
      await openExecutor.close();
    },
  };
  const open = () => {
    if (closed) throw new Error('The journal is closed.');
    return openExecutor;
  };
  const changed = async (statement: string, params: readonly SqlValue[]) =>
    (await executor.execute(statement, params)) > 0;

  return {
    ...recordingSteps(executor, sql),
    discardIntent: (idempotencyKey: string) => changed(sql.discardIntent, [idempotencyKey]),
    async claimDue(owner: string, { now, limit, leaseMs }: ClaimOptions) {
      const rows = await executor.claim(sql.claimDue, [owner, now + leaseMs, now, limit]);
      return claimedEntries<PendingEntry>(rows);
    },
    renewLease: (idempotencyKey: string, owner: string, until: number) =>
      changed(sql.renewLease, [idempotencyKey, owner, until]),
    recordChecked(idempotencyKey: string, owner: string, result: CheckResult) {
      const { paymentStatus, now, nextCheckAt } = result;
      const outcome = outcomeOfPaymentStatus(paymentStatus);
      return outcome === null
        ? changed(sql.checkedPending, [idempotencyKey, owner, paymentStatus, nextCheckAt])
        : changed(sql.checkedSettled, [
            idempotencyKey,
            owner,
            paymentStatus,
            outcome,
            now,
            ...reading(result),
          ]);
    },
    deferCheck: (idempotencyKey: string, owner: string, dueAt: number) =>
      changed(sql.deferCheck, [idempotencyKey, owner, dueAt]),
    recordExpired: (idempotencyKey: string, owner: string, now: number) =>
      changed(sql.expired, [idempotencyKey, owner, now]),
    async settleFromBrowserLookup(orderId: string, paymentStatus: string, now: number, read = {}) {
      const outcome = outcomeOfPaymentStatus(paymentStatus);
      return (
        outcome !== null &&
        changed(sql.browserSettled, [orderId, paymentStatus, outcome, now, ...reading(read)])
      );
    },
    async claimUndelivered(owner: string, { now, limit, leaseMs }: ClaimOptions) {
      const rows = await executor.claim(sql.claimUndelivered, [owner, now + leaseMs, now, limit]);
      return claimedEntries<SettledEntry>(rows);
    },
    markDelivered: (idempotencyKey: string, owner: string, now: number) =>
      changed(sql.markDelivered, [idempotencyKey, owner, now]),
    recordDeliveryFailure: (
      idempotencyKey: string,
      owner: string,
      { nextAttemptAt, error }: DeliveryFailure,
    ) => changed(sql.deliveryFailed, [idempotencyKey, owner, shortDeliveryError(error), nextAttemptAt]),
    ...reads(executor, sql),
    prune: ({ now, retentionMs }: { now: number; retentionMs: number }) =>
      executor.execute(sql.prune, [now - retentionMs]),
    close: () => executor.close(),
  };
}

/** A service reading's parameters, in the order the settling statements take them. */
function reading(read: ServiceReading): SqlValue[] {
  const { failure_code, amount_currency, amount_value } = readingColumns(read);
  return [failure_code, amount_currency, amount_value];
}

/** The intent, with what the checkout is for, and the service's answer to it. */
function recordingSteps(executor: SqlExecutor, sql: JournalStatements) {
  return {
    async recordIntent({ idempotencyKey, createBody, now, resendAt, details }: CreateIntent) {
      const { reference, metadata, line_items, amount_currency, amount_value } = detailsColumns(details);
      await executor.execute(sql.insertIntent, [
        ...[idempotencyKey, JSON.stringify(createBody), now, resendAt],
        ...[reference, metadata, line_items, amount_currency, amount_value],
      ]);
    },
    async recordCreated(idempotencyKey: string, answer: CreateAnswer) {
      const { orderId, paymentStatus, now, nextCheckAt } = answer;
      const outcome = outcomeOfPaymentStatus(paymentStatus);
      const [failureCode = null, ...total] = reading(answer);
      if (outcome === null) {
        await executor.execute(sql.createdWatching, [
          idempotencyKey,
          orderId,
          paymentStatus,
          nextCheckAt,
          ...total,
        ]);
      } else {
        const params = [idempotencyKey, orderId, paymentStatus, outcome, now, failureCode, ...total];
        await executor.execute(sql.createdSettled, params);
      }
    },
  };
}

/** The journal's reads: entries, the demo's list, and orders with what they were for. */
function reads(executor: SqlExecutor, sql: JournalStatements) {
  return {
    async get(idempotencyKey: string): Promise<JournalEntry | undefined> {
      const [row] = await executor.query(sql.get, [idempotencyKey]);
      return row && rowToEntry(row);
    },
    async listRecent(limit: number): Promise<FulfilmentSummary[]> {
      const rows = await executor.query(sql.listRecent, [limit]);
      return rows.map(fulfilmentSummary);
    },
    async readOrder(by: { orderId: string } | { idempotencyKey: string }) {
      const [row] =
        'orderId' in by
          ? await executor.query(sql.orderById, [by.orderId])
          : await executor.query(sql.get, [by.idempotencyKey]);
      return row && rowToOrder(row);
    },
    async ordersByReference(reference: string, limit: number) {
      return (await executor.query(sql.ordersByReference, [reference, limit])).map(rowToOrder);
    },
    async recordAmount(idempotencyKey: string, { currency, value }: OrderAmount) {
      return (await executor.execute(sql.recordAmount, [idempotencyKey, currency, value])) > 0;
    },
  };
}
