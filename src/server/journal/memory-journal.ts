/**
 * The journal in this process's memory, for tests and demos: the same rows and
 * the same rules as the SQL stores, kept in a `Map`, and gone with the process.
 * Its clock is this process's (or a test's): one process, one clock.
 */

import { type CheckoutRow, checkoutRowOf, rowToCheckout } from './checkout-row.js';
import type {
  CheckResult,
  Claimed,
  ClaimOptions,
  CreateAnswer,
  CreateIntent,
  DeliveryFailure,
  ExpiredOrder,
  FulfilmentSummary,
  Journal,
  JournalCheckout,
  JournalEntry,
  JournalOrder,
  OrderAmount,
  OrdersWithinOptions,
  PendingEntry,
  ServiceReading,
  SettledEntry,
} from './journal.js';
import { SETTLER_DELIVERS_FIRST_MS, SETTLER_LEASE_SUFFIX, UNKNOWN_ORDER_FAILURE } from './journal.js';
import { attemptColumns, detailsColumns, readingColumns, rowToAttempt, rowToOrder } from './journal-order.js';
import {
  claimedEntries,
  fulfilmentSummary,
  type JournalRow,
  outcomeOfPaymentStatus,
  rowToEntry,
  shortDeliveryError,
} from './journal-row.js';
import type { JournalClock } from './journal-url.js';
import {
  type LookupColumns,
  type RecordedLookup,
  recordLookupOnRow,
  type SharedLookup,
  type ShareLookupOptions,
  shareLookupOnRow,
} from './lookup-journal.js';

const RELEASED = { lease_owner: null, lease_expires_at: null } as const;

function isLeaseFree(row: JournalRow, now: number): boolean {
  return row.lease_expires_at === null || Number(row.lease_expires_at) <= now;
}

function isDue(row: JournalRow, now: number): boolean {
  return row.due_at !== null && Number(row.due_at) <= now && isLeaseFree(row, now);
}

/** The lease an order settles with: `by`'s for a moment (its delivery comes first), or none when `by` is ''. */
function settledLease(by: string, now: number): Pick<JournalRow, 'lease_owner' | 'lease_expires_at'> {
  if (by === '') return RELEASED;
  return { lease_owner: by + SETTLER_LEASE_SUFFIX, lease_expires_at: now + SETTLER_DELIVERS_FIRST_MS };
}

function isOwnAndDue(row: JournalRow, owner: string, now: number): boolean {
  return row.lease_owner === owner + SETTLER_LEASE_SUFFIX && row.due_at !== null && Number(row.due_at) <= now;
}

/** A journal held in memory; `memory:` in `openJournal`. */
export class MemoryJournal implements Journal {
  readonly #rows = new Map<string, JournalRow>();
  /** The checkouts the merchant's server created, as the SQL stores keep them in their own table. */
  readonly #checkouts = new Map<string, CheckoutRow>();
  readonly #clock: JournalClock;
  /** The fleet's one sweep, as the SQL stores keep it in its own table. */
  readonly #sweep = {
    owner: null as string | null,
    leaseExpiresAt: null as number | null,
    sweptAt: null as number | null,
  };
  #closed = false;

  /** A journal on `clock` (this process's by default). */
  constructor(clock: JournalClock = { now: () => Date.now() }) {
    this.#clock = clock;
  }

  async recordIntent(intent: CreateIntent): Promise<void> {
    const { idempotencyKey, createBody, resendInMs, prompt, ...kept } = intent;
    const now = this.#clock.now();
    if (prompt) this.#releasePrompt(prompt.key, now - Math.round(prompt.openForMs));
    if (this.#open().has(idempotencyKey)) return;
    if (prompt && this.#byPromptKey(prompt.key)) return;
    this.#rows.set(idempotencyKey, {
      idempotency_key: idempotencyKey,
      phase: 'creating',
      create_body: JSON.stringify(createBody),
      order_id: null,
      payment_status: null,
      outcome: null,
      created_at: now,
      due_at: now + Math.round(resendInMs),
      settled_at: null,
      delivered_at: null,
      delivery_attempts: 0,
      last_delivery_error: null,
      ...RELEASED,
      ...detailsColumns(kept.details),
      failure_code: null,
      issuer: kept.issuer ?? null,
      ...attemptColumns(intent),
    });
  }

  async recordCreated(idempotencyKey: string, answer: CreateAnswer) {
    const { orderId, paymentStatus, nextCheckInMs } = answer;
    const row = this.#open().get(idempotencyKey);
    if (row?.phase !== 'creating') return;
    const now = this.#clock.now();
    const outcome = outcomeOfPaymentStatus(paymentStatus);
    const common = { create_body: null, order_id: orderId, payment_status: paymentStatus, ...RELEASED };
    Object.assign(
      row,
      outcome === null
        ? { ...common, phase: 'watching', due_at: now + Math.round(nextCheckInMs) }
        : { ...common, phase: 'settled', outcome, settled_at: now, due_at: now },
      readChanges(row, outcome === null ? { amount: answer.amount } : answer),
    );
  }

  async discardIntent(idempotencyKey: string): Promise<boolean> {
    return this.#open().get(idempotencyKey)?.phase === 'creating' && this.#rows.delete(idempotencyKey);
  }

  async claimDue(owner: string, options: ClaimOptions): Promise<Claimed<PendingEntry>[]> {
    return claimedEntries(this.#claim(owner, options, (row) => row.phase !== 'settled'));
  }

  async renewLease(idempotencyKey: string, owner: string, leaseMs: number): Promise<boolean> {
    return this.#update(idempotencyKey, owner, () => true, {
      lease_expires_at: this.#clock.now() + Math.round(leaseMs),
    });
  }

  async recordChecked(idempotencyKey: string, owner: string, result: CheckResult) {
    const { paymentStatus, nextCheckInMs } = result;
    const now = this.#clock.now();
    const outcome = outcomeOfPaymentStatus(paymentStatus);
    const row = this.#open().get(idempotencyKey);
    if (row === undefined) return false;
    const changes =
      outcome === null
        ? { payment_status: paymentStatus, due_at: now + Math.round(nextCheckInMs) }
        : {
            phase: 'settled',
            payment_status: paymentStatus,
            outcome,
            settled_at: now,
            due_at: now,
            ...readChanges(row, result),
          };
    // Settled, it stays the holder's a moment: its delivery comes first.
    const lease = outcome === null ? RELEASED : settledLease(owner, now);
    return this.#update(idempotencyKey, owner, (row) => row.phase === 'watching', { ...changes, ...lease });
  }

  async deferCheck(idempotencyKey: string, owner: string, dueInMs: number): Promise<boolean> {
    return this.#update(idempotencyKey, owner, (row) => row.phase !== 'settled', {
      due_at: this.#clock.now() + Math.round(dueInMs),
      ...RELEASED,
    });
  }

  async recordExpired(idempotencyKey: string, owner: string): Promise<boolean> {
    const now = this.#clock.now();
    const changes = { phase: 'settled', create_body: null, outcome: 'expired', settled_at: now, due_at: now };
    return this.#update(idempotencyKey, owner, (row) => row.phase !== 'settled', { ...changes, ...RELEASED });
  }

  async settleFromBrowserLookup(
    orderId: string,
    paymentStatus: string,
    reading: ServiceReading = {},
    by = '',
  ): Promise<boolean> {
    const outcome = outcomeOfPaymentStatus(paymentStatus);
    const row = [...this.#open().values()].find((candidate) => candidate.order_id === orderId);
    if (outcome === null || row?.phase !== 'watching') return false;
    const now = this.#clock.now();
    const changes = {
      phase: 'settled',
      payment_status: paymentStatus,
      outcome,
      settled_at: now,
      due_at: now,
    };
    Object.assign(row, changes, readChanges(row, reading), settledLease(by, now));
    return true;
  }

  async recordLatePayment(orderId: string, reading: ServiceReading = {}, by = ''): Promise<boolean> {
    const now = this.#clock.now();
    const row = this.#byOrderId(orderId);
    if (row?.phase !== 'settled' || !isLiftable(row) || !isLeaseFree(row, now)) return false;
    Object.assign(row, {
      outcome: 'paid',
      // An order the service did not know failed for nothing the payer did: no previous outcome.
      previous_outcome: row.outcome === 'expired' ? 'expired' : null,
      payment_status: 'paid',
      ...{
        settled_at: now,
        due_at: now,
        delivered_at: null,
        delivery_attempts: 0,
        last_delivery_error: null,
      },
      ...readChanges(row, { ...reading, failureCode: null }),
      ...settledLease(by, now),
    });
    return true;
  }

  async ordersWithin({ withinMs, limit, after }: OrdersWithinOptions): Promise<JournalOrder[]> {
    const since = this.#clock.now() - withinMs;
    const isAfter = (row: JournalRow) =>
      !after ||
      Number(row.created_at) < after.createdAt ||
      (Number(row.created_at) === after.createdAt && String(row.idempotency_key) < after.idempotencyKey);
    return [...this.#open().values()]
      .filter((row) => row.order_id !== null && Number(row.created_at) >= since && isAfter(row))
      .sort(newestFirst)
      .slice(0, limit)
      .map(rowToOrder);
  }

  async expiredOrders({ withinMs, limit }: { withinMs: number; limit: number }): Promise<ExpiredOrder[]> {
    const since = this.#clock.now() - withinMs;
    return [...this.#open().values()]
      .filter((row) => isLiftable(row) && row.order_id !== null && Number(row.created_at) >= since)
      .sort((a, b) => Number(a.created_at) - Number(b.created_at))
      .slice(0, limit)
      .map((row) => ({ orderId: row.order_id as string, createdAt: Number(row.created_at) }));
  }

  async claimSweep(owner: string, { leaseMs, everyMs }: { leaseMs: number; everyMs: number }) {
    const now = this.#clock.now();
    const sweep = this.#sweep;
    this.#open();
    if (sweep.leaseExpiresAt !== null && sweep.leaseExpiresAt > now) return false;
    if (sweep.sweptAt !== null && sweep.sweptAt > now - everyMs) return false;
    Object.assign(sweep, { owner, leaseExpiresAt: now + Math.round(leaseMs) });
    return true;
  }

  async finishSweep(owner: string, swept: boolean): Promise<void> {
    const sweep = this.#sweep;
    if (this.#open() && sweep.owner !== owner) return;
    Object.assign(sweep, { owner: null, leaseExpiresAt: null }, swept ? { sweptAt: this.#clock.now() } : {});
  }

  async claimUndelivered(owner: string, options: ClaimOptions): Promise<Claimed<SettledEntry>[]> {
    const undelivered = (row: JournalRow) => row.phase === 'settled' && row.delivered_at === null;
    return claimedEntries(this.#claim(owner, options, undelivered, true));
  }

  async markDelivered(idempotencyKey: string, owner: string): Promise<boolean> {
    return this.#update(idempotencyKey, owner, isUndelivered, {
      delivered_at: this.#clock.now(),
      due_at: null,
      ...RELEASED,
    });
  }

  async recordDeliveryFailure(idempotencyKey: string, owner: string, { retryInMs, error }: DeliveryFailure) {
    const row = this.#open().get(idempotencyKey);
    const attempts = Number(row?.delivery_attempts ?? 0) + 1;
    const changes = { delivery_attempts: attempts, last_delivery_error: shortDeliveryError(error) };
    return this.#update(idempotencyKey, owner, isUndelivered, {
      ...changes,
      due_at: this.#clock.now() + Math.round(retryInMs),
      ...RELEASED,
    });
  }

  async get(idempotencyKey: string): Promise<JournalEntry | undefined> {
    const row = this.#open().get(idempotencyKey);
    return row && rowToEntry(row);
  }

  async readAttempt(by: { idempotencyKey: string } | { promptKey: string }) {
    const row = 'promptKey' in by ? this.#byPromptKey(by.promptKey) : this.#open().get(by.idempotencyKey);
    return row && rowToAttempt(row);
  }

  async listRecent(limit: number): Promise<FulfilmentSummary[]> {
    return [...this.#open().values()]
      .filter((row) => row.order_id !== null)
      .sort(newestFirst)
      .slice(0, limit)
      .map(fulfilmentSummary);
  }

  async readOrder(by: { orderId: string } | { idempotencyKey: string }): Promise<JournalOrder | undefined> {
    const rows = this.#open();
    const row =
      'orderId' in by
        ? [...rows.values()].find((candidate) => candidate.order_id === by.orderId)
        : rows.get(by.idempotencyKey);
    return row && rowToOrder(row);
  }

  async ordersByReference(reference: string, limit: number): Promise<JournalOrder[]> {
    return [...this.#open().values()]
      .filter((row) => row.reference === reference && row.order_id !== null)
      .sort(newestFirst)
      .slice(0, limit)
      .map(rowToOrder);
  }

  async recordAmount(idempotencyKey: string, { currency, value }: OrderAmount): Promise<boolean> {
    const row = this.#open().get(idempotencyKey);
    if (row === undefined || row.amount_value !== null) return false;
    Object.assign(row, { amount_currency: currency, amount_value: value });
    return true;
  }

  async recordCheckout(checkout: JournalCheckout): Promise<void> {
    const checkouts = this.#openCheckouts();
    if (!checkouts.has(checkout.id)) checkouts.set(checkout.id, checkoutRowOf(checkout));
  }

  async readCheckout(id: string): Promise<JournalCheckout | undefined> {
    const row = this.#openCheckouts().get(id);
    return row && rowToCheckout(row);
  }

  /** The checkouts, once the journal is known to be open. */
  #openCheckouts(): Map<string, CheckoutRow> {
    this.#open();
    return this.#checkouts;
  }

  async prune({ retentionMs }: { retentionMs: number }): Promise<number> {
    const now = this.#clock.now();
    let pruned = 0;
    for (const [id, row] of this.#openCheckouts()) {
      if (Number(row.expires_at) < now - retentionMs) {
        this.#checkouts.delete(id);
        pruned += 1;
      }
    }
    for (const [key, row] of this.#open()) {
      if (
        row.phase === 'settled' &&
        row.delivered_at !== null &&
        Number(row.delivered_at) < now - retentionMs
      ) {
        this.#rows.delete(key);
        pruned += 1;
      }
    }
    return pruned;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#rows.clear();
    this.#checkouts.clear();
  }

  async shareLookup(orderId: string, options: ShareLookupOptions): Promise<SharedLookup> {
    const row = this.#byOrderId(orderId);
    return row === undefined ? { kind: 'unknown' } : shareLookupOnRow(row, this.#clock.now(), options);
  }

  async holdLookupClaim(orderId: string): Promise<void> {
    const row = this.#byOrderId(orderId);
    if (row !== undefined) row.lookup_claimed_at = this.#clock.now();
  }

  async recordLookup(orderId: string, lookup: RecordedLookup): Promise<void> {
    const row = this.#byOrderId(orderId);
    if (row !== undefined) recordLookupOnRow(row, this.#clock.now(), lookup);
  }

  /** The raw rows, for tests that prove what is (and is not) stored. */
  rawRows(): readonly Readonly<JournalRow>[] {
    return [...this.#open().values()].map((row) => ({ ...row }));
  }

  #open(): Map<string, JournalRow> {
    if (this.#closed) throw new Error('The journal is closed.');
    return this.#rows;
  }

  #byPromptKey(promptKey: string): JournalRow | undefined {
    for (const row of this.#open().values()) if (row.prompt_key === promptKey) return row;
    return undefined;
  }

  /** Frees a prompt key held by a settled row or one created at or before `openSince`, as the SQL stores do. */
  #releasePrompt(promptKey: string, openSince: number): void {
    const row = this.#byPromptKey(promptKey);
    if (row && (row.phase === 'settled' || Number(row.created_at) <= openSince)) row.prompt_key = null;
  }

  #byOrderId(orderId: string): (JournalRow & Partial<LookupColumns>) | undefined {
    for (const row of this.#open().values()) if (row.order_id === orderId) return row;
    return undefined;
  }

  #claim(
    owner: string,
    { limit, leaseMs }: ClaimOptions,
    kind: (row: JournalRow) => boolean,
    ownToo = false,
  ): JournalRow[] {
    const now = this.#clock.now();
    const due = [...this.#open().values()]
      .filter((row) => kind(row) && (isDue(row, now) || (ownToo && isOwnAndDue(row, owner, now))))
      .sort((a, b) => Number(a.due_at) - Number(b.due_at))
      .slice(0, limit);
    for (const row of due)
      Object.assign(row, { lease_owner: owner, lease_expires_at: now + Math.round(leaseMs) });
    return due.map((row) => ({ ...row, claimed_at: now }));
  }

  #update(
    key: string,
    owner: string,
    when: (row: JournalRow) => boolean,
    changes: Partial<JournalRow>,
  ): boolean {
    const row = this.#open().get(key);
    if (row?.lease_owner !== owner || !when(row)) return false;
    Object.assign(row, changes);
    return true;
  }
}

/** Newest first, as the SQL stores order: by creation time, then by key. */
function newestFirst(a: JournalRow, b: JournalRow): number {
  return Number(b.created_at) - Number(a.created_at) || (a.idempotency_key < b.idempotency_key ? 1 : -1);
}

/** What a service reading changes in `row`, as the SQL stores write it: a total it gave replaces the recorded one. */
function readChanges(row: JournalRow, reading: ServiceReading): Partial<JournalRow> {
  const columns = readingColumns(reading);
  return {
    failure_code: columns.failure_code,
    amount_currency: columns.amount_currency ?? row.amount_currency,
    amount_value: columns.amount_value ?? row.amount_value,
  };
}

function isUndelivered(row: JournalRow): boolean {
  return row.phase === 'settled' && row.delivered_at === null;
}

/** Whether a payment found later lifts `row`: settled expired, or failed because the service did not know it. */
function isLiftable(row: JournalRow): boolean {
  return (
    row.outcome === 'expired' || (row.outcome === 'failed' && row.failure_code === UNKNOWN_ORDER_FAILURE)
  );
}
