/**
 * The journal in this process's memory, for tests and demos: the same rows and
 * the same rules as the SQL stores, kept in a `Map`, and gone with the process.
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
  PendingEntry,
  SettledEntry,
} from './journal.js';
import {
  claimedEntries,
  fulfilmentSummary,
  type JournalRow,
  outcomeOfPaymentStatus,
  rowToEntry,
  shortDeliveryError,
} from './journal-row.js';
import {
  isFreshLookup,
  type LookupColumns,
  lookupColumnsOf,
  type SharedLookup,
  type ShareLookupOptions,
  type StoredLookup,
  storedLookupOf,
} from './lookup-journal.js';

const RELEASED = { lease_owner: null, lease_expires_at: null } as const;

function isLeaseFree(row: JournalRow, now: number): boolean {
  return row.lease_expires_at === null || Number(row.lease_expires_at) <= now;
}

function isDue(row: JournalRow, now: number): boolean {
  return row.due_at !== null && Number(row.due_at) <= now && isLeaseFree(row, now);
}

/** A journal held in memory; `memory:` in `openJournal`. */
export class MemoryJournal implements Journal {
  readonly #rows = new Map<string, JournalRow>();
  #closed = false;

  async recordIntent({ idempotencyKey, createBody, now, resendAt }: CreateIntent): Promise<void> {
    if (this.#open().has(idempotencyKey)) return;
    this.#rows.set(idempotencyKey, {
      idempotency_key: idempotencyKey,
      phase: 'creating',
      create_body: JSON.stringify(createBody),
      order_id: null,
      payment_status: null,
      outcome: null,
      created_at: now,
      due_at: resendAt,
      settled_at: null,
      delivered_at: null,
      delivery_attempts: 0,
      last_delivery_error: null,
      ...RELEASED,
    });
  }

  async recordCreated(idempotencyKey: string, { orderId, paymentStatus, now, nextCheckAt }: CreateAnswer) {
    const row = this.#open().get(idempotencyKey);
    if (row?.phase !== 'creating') return;
    const outcome = outcomeOfPaymentStatus(paymentStatus);
    const common = { create_body: null, order_id: orderId, payment_status: paymentStatus, ...RELEASED };
    Object.assign(
      row,
      outcome === null
        ? { ...common, phase: 'watching', due_at: nextCheckAt }
        : { ...common, phase: 'settled', outcome, settled_at: now, due_at: now },
    );
  }

  async discardIntent(idempotencyKey: string): Promise<boolean> {
    return this.#open().get(idempotencyKey)?.phase === 'creating' && this.#rows.delete(idempotencyKey);
  }

  async claimDue(owner: string, options: ClaimOptions): Promise<PendingEntry[]> {
    return claimedEntries(this.#claim(owner, options, (row) => row.phase !== 'settled'));
  }

  async renewLease(idempotencyKey: string, owner: string, until: number): Promise<boolean> {
    return this.#update(idempotencyKey, owner, () => true, { lease_expires_at: until });
  }

  async recordChecked(
    idempotencyKey: string,
    owner: string,
    { paymentStatus, now, nextCheckAt }: CheckResult,
  ) {
    const outcome = outcomeOfPaymentStatus(paymentStatus);
    const changes =
      outcome === null
        ? { payment_status: paymentStatus, due_at: nextCheckAt }
        : { phase: 'settled', payment_status: paymentStatus, outcome, settled_at: now, due_at: now };
    return this.#update(idempotencyKey, owner, (row) => row.phase === 'watching', {
      ...changes,
      ...RELEASED,
    });
  }

  async deferCheck(idempotencyKey: string, owner: string, dueAt: number): Promise<boolean> {
    return this.#update(idempotencyKey, owner, (row) => row.phase !== 'settled', {
      due_at: dueAt,
      ...RELEASED,
    });
  }

  async recordExpired(idempotencyKey: string, owner: string, now: number): Promise<boolean> {
    const changes = { phase: 'settled', create_body: null, outcome: 'expired', settled_at: now, due_at: now };
    return this.#update(idempotencyKey, owner, (row) => row.phase !== 'settled', { ...changes, ...RELEASED });
  }

  async settleFromBrowserLookup(orderId: string, paymentStatus: string, now: number): Promise<boolean> {
    const outcome = outcomeOfPaymentStatus(paymentStatus);
    const row = [...this.#open().values()].find((candidate) => candidate.order_id === orderId);
    if (outcome === null || row?.phase !== 'watching') return false;
    const changes = {
      phase: 'settled',
      payment_status: paymentStatus,
      outcome,
      settled_at: now,
      due_at: now,
    };
    Object.assign(row, changes, RELEASED);
    return true;
  }

  async claimUndelivered(owner: string, options: ClaimOptions): Promise<SettledEntry[]> {
    const undelivered = (row: JournalRow) => row.phase === 'settled' && row.delivered_at === null;
    return claimedEntries(this.#claim(owner, options, undelivered));
  }

  async markDelivered(idempotencyKey: string, owner: string, now: number): Promise<boolean> {
    return this.#update(idempotencyKey, owner, isUndelivered, {
      delivered_at: now,
      due_at: null,
      ...RELEASED,
    });
  }

  async recordDeliveryFailure(
    idempotencyKey: string,
    owner: string,
    { nextAttemptAt, error }: DeliveryFailure,
  ) {
    const row = this.#open().get(idempotencyKey);
    const attempts = Number(row?.delivery_attempts ?? 0) + 1;
    const changes = { delivery_attempts: attempts, last_delivery_error: shortDeliveryError(error) };
    return this.#update(idempotencyKey, owner, isUndelivered, {
      ...changes,
      due_at: nextAttemptAt,
      ...RELEASED,
    });
  }

  async get(idempotencyKey: string): Promise<JournalEntry | undefined> {
    const row = this.#open().get(idempotencyKey);
    return row && rowToEntry(row);
  }

  async listRecent(limit: number): Promise<FulfilmentSummary[]> {
    return [...this.#open().values()]
      .filter((row) => row.order_id !== null)
      .sort(
        (a, b) =>
          Number(b.created_at) - Number(a.created_at) || (a.idempotency_key < b.idempotency_key ? 1 : -1),
      )
      .slice(0, limit)
      .map(fulfilmentSummary);
  }

  async prune({ now, retentionMs }: { now: number; retentionMs: number }): Promise<number> {
    let pruned = 0;
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
  }

  async shareLookup(
    orderId: string,
    { now, freshMs, watchAgainAt }: ShareLookupOptions,
  ): Promise<SharedLookup> {
    const row = this.#byOrderId(orderId);
    if (row === undefined) return { kind: 'unknown' };
    const stored = storedLookupOf(row);
    if (stored && isFreshLookup(stored, now, freshMs)) return { kind: 'fresh', stored };
    const claimedAt = row.lookup_claimed_at == null ? undefined : Number(row.lookup_claimed_at);
    // The watcher holding a watched order's lease is looking it up: that lookup is the one (sql-lookups.ts).
    const watcherLooking = row.phase === 'watching' && !isLeaseFree(row, now);
    if ((claimedAt !== undefined && claimedAt > now - freshMs) || watcherLooking)
      return { kind: 'taken', stored };
    row.lookup_claimed_at = now;
    if (row.phase === 'watching' && Number(row.due_at) < watchAgainAt) row.due_at = watchAgainAt;
    return { kind: 'claimed', stored };
  }

  async recordLookup(orderId: string, lookup: StoredLookup): Promise<void> {
    const row = this.#byOrderId(orderId);
    if (row === undefined || (row.lookup_read_at != null && Number(row.lookup_read_at) > lookup.readAt))
      return;
    Object.assign(row, lookupColumnsOf(lookup));
    if (row.lookup_claimed_at == null || Number(row.lookup_claimed_at) < lookup.readAt) {
      row.lookup_claimed_at = lookup.readAt;
    }
  }

  /** The raw rows, for tests that prove what is (and is not) stored. */
  rawRows(): readonly Readonly<JournalRow>[] {
    return [...this.#open().values()].map((row) => ({ ...row }));
  }

  #open(): Map<string, JournalRow> {
    if (this.#closed) throw new Error('The journal is closed.');
    return this.#rows;
  }

  #byOrderId(orderId: string): (JournalRow & Partial<LookupColumns>) | undefined {
    for (const row of this.#open().values()) if (row.order_id === orderId) return row;
    return undefined;
  }

  #claim(
    owner: string,
    { now, limit, leaseMs }: ClaimOptions,
    kind: (row: JournalRow) => boolean,
  ): JournalRow[] {
    const due = [...this.#open().values()]
      .filter((row) => kind(row) && isDue(row, now))
      .sort((a, b) => Number(a.due_at) - Number(b.due_at))
      .slice(0, limit);
    for (const row of due) Object.assign(row, { lease_owner: owner, lease_expires_at: now + leaseMs });
    return due.map((row) => ({ ...row }));
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

function isUndelivered(row: JournalRow): boolean {
  return row.phase === 'settled' && row.delivered_at === null;
}
