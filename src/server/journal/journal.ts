/**
 * The durable order journal: one entry per checkout attempt,
 * keyed by the scoped idempotency key, written before the service is called so
 * that no order the service creates through the relay can be missed.
 *
 * The journal only stores; the relay's watcher decides when to look an order
 * up and when to call the merchant. The journal keeps time itself: every time
 * it stores or compares is its own (PostgreSQL's `now()`, SQLite's clock, this
 * process's for `memory:`), and callers give durations (`…InMs`), never
 * instants. So a relay process whose clock jumps can neither take another's
 * lease nor make an order look older than it is.
 *
 * Leases make the fleet safe: a process claims an entry for `leaseMs`, and
 * only the lease holder may write its result. A process that dies stops
 * renewing, its leases run out, and another process claims the entry.
 */

import type { OrderAmount } from '../../shared/wire.js';
import type { PricedLineItem } from '../pricing/priced-line-items.js';
import type { LookupJournal } from './lookup-journal.js';

/** Where an entry stands: being created, being watched, or settled. */
export const JOURNAL_PHASE = {
  creating: 'creating',
  watching: 'watching',
  settled: 'settled',
} as const;
/** One of the journal's phases. */
export type JournalPhase = (typeof JOURNAL_PHASE)[keyof typeof JOURNAL_PHASE];

/** How a settled order ended: the callback the merchant is owed (`onPaid`, `onFailed`, `onExpired`). */
export type JournalOutcome = 'paid' | 'failed' | 'expired';

/** The service request body of a create, kept only until the service has answered it. */
export type CreateRequestBody = Readonly<Record<string, unknown>>;

/** Fields every entry has, whatever its phase. */
interface JournalEntryBase {
  /** The scoped idempotency key: the same key replays the same create. */
  idempotencyKey: string;
  /** When the relay recorded the intent to create. */
  createdAt: number;
}

/** The relay is about to ask the service to create this order, or has not heard back. */
export interface CreatingEntry extends JournalEntryBase {
  phase: 'creating';
  /** Exactly what to resend to learn the order (it holds the customer's name and number). */
  createBody: CreateRequestBody;
  /** When the watcher may resend the create, if the relay has not recorded an answer by then. */
  dueAt: number;
  /** The idempotency key the service knows this create by; absent: `idempotencyKey` (journalled before keys were bound to the attempt). */
  serviceKey?: string;
}

/** The service created the order; the payer has not settled it yet. */
export interface WatchingEntry extends JournalEntryBase {
  phase: 'watching';
  orderId: string;
  /** The payment status last read. */
  paymentStatus: string;
  /** When the order is next looked up. */
  dueAt: number;
}

/** The order is settled; the merchant's callback is owed until `deliveredAt` is set. */
export interface SettledEntry extends JournalEntryBase {
  phase: 'settled';
  /** Absent only when a create never got an answer before the watcher gave up. */
  orderId: string | null;
  outcome: JournalOutcome;
  /** The last payment status read; absent when the watcher gave up without one. */
  paymentStatus: string | null;
  settledAt: number;
  /** When the callback returned; `null` while it is still owed. */
  deliveredAt: number | null;
  /** Failed calls of the callback so far. */
  deliveryAttempts: number;
  /** When the callback is next due; `null` once delivered. */
  dueAt: number | null;
  /** A short description of the last failure (never personal data), or `null`. */
  lastDeliveryError: string | null;
}

/** One checkout attempt as the journal holds it: one type per phase. */
export type JournalEntry = CreatingEntry | WatchingEntry | SettledEntry;

/** An entry the watcher may act on: resend its create, or look its order up. */
export type PendingEntry = CreatingEntry | WatchingEntry;

/** One row of `listRecent`: order ids and statuses only. */
export interface FulfilmentSummary {
  orderId: string;
  /** `pending` until the order settles, then its outcome. */
  status: 'pending' | JournalOutcome;
  deliveredAt: number | null;
}

/** An amount of money, `{ currency, value }`: the wire's one shape of money, kept as it is. */
export type { OrderAmount };

/** What the checkout was for: recorded with the intent. */
export interface OrderDetails {
  /** The merchant's reference for the checkout, or `null` when `priceCart` gave none. */
  reference: string | null;
  /** The merchant's metadata; `{}` when none. */
  metadata: Readonly<Record<string, string>>;
  /** The line items as `priceCart` returned them. */
  lineItems: readonly PricedLineItem[];
  /** The service's order total once it answered, else the priced total; `null` only for an order journalled before amounts were kept. */
  amount: OrderAmount | null;
}

/** What a read of an order at the service adds to its payment status: why it failed, and its total. */
export interface ServiceReading {
  /** The payment's failure code, allow-listed (`declined`, `insufficient_funds`); `null` when none. */
  failureCode?: string | null;
  /** The service's order total (`line_item_group.total`). */
  amount?: OrderAmount;
}

/** One order as the journal reads it for `relay.orders` and the merchant's callbacks. */
export interface JournalOrder extends OrderDetails {
  idempotencyKey: string;
  /** `null` while the create has no answer, and for a create the watcher gave up on unanswered. */
  orderId: string | null;
  /** `pending` until the order settles. */
  outcome: JournalOutcome | 'pending';
  paymentStatus: string | null;
  failureCode: string | null;
  /** The network the shopper paid from (issuer code), to tell their retries from another's; `null` for a checkout journalled before it was kept. */
  issuer: string | null;
  /** `expired` when the relay had settled the order expired before the service showed it paid; else `null`. */
  previousOutcome: 'expired' | null;
  createdAt: number;
  settledAt: number | null;
  deliveredAt: number | null;
}

/** Which orders `ordersWithin` reads: a page of them, newest first. */
export interface OrdersWithinOptions {
  withinMs: number;
  limit: number;
  /** The last order of the previous page: this page starts after it, in the same order. */
  after?: Pick<JournalOrder, 'createdAt' | 'idempotencyKey'>;
}

/** An order settled `expired`, as a sweep looks for it. */
export interface ExpiredOrder {
  orderId: string;
  /** When the relay recorded its intent, on the journal's clock. */
  createdAt: number;
}

/** What the relay records before it calls the service. */
export interface CreateIntent {
  idempotencyKey: string;
  createBody: CreateRequestBody;
  /** How long the watcher leaves the create to the relay before resending it: past the relay's own create call. */
  resendInMs: number;
  /** What the checkout is for, recorded in the same write; kept until the order is pruned. */
  details?: OrderDetails;
  /** The mobile-money network (issuer code: `mtn`, `telecel`, `at`); kept, unlike the body, until the order is pruned. */
  issuer?: string;
  /** The keyed digest of what identifies the attempt (cart, name, number, network); kept until the order is pruned. */
  attemptDigest?: string;
  /** The idempotency key the service is called with for this create; absent: `idempotencyKey`. */
  serviceKey?: string;
  /**
   * The checkout's prompt to one number (a keyed digest of its reference and
   * the number): no intent is recorded while another row holds it, settled
   * rows and rows older than `openForMs` giving it up first.
   */
  prompt?: { key: string; openForMs: number };
}

/** One attempt as the journal holds it: its entry, its order, and the digest of what it is. */
export interface JournalAttempt {
  entry: JournalEntry;
  order: JournalOrder;
  /** The keyed digest recorded with the intent; `null` for an attempt journalled before digests were kept. */
  attemptDigest: string | null;
}

/** What the service answered to a create (or to its replay). */
export interface CreateAnswer extends ServiceReading {
  orderId: string;
  paymentStatus: string;
  /** How long until the first lookup, if the status is not yet settled. */
  nextCheckInMs: number;
}

/** What a claim asks for. */
export interface ClaimOptions {
  /** At most this many entries. */
  limit: number;
  /** How long the claim is exclusive, on the journal's clock; renew it before then with `renewLease`. */
  leaseMs: number;
}

/** A claimed entry, with the journal's time of the claim: its age is `claimedAt - createdAt`, on one clock. */
export type Claimed<T extends JournalEntry> = T & {
  /** The journal's time when it leased the entry (epoch ms). */
  claimedAt: number;
};

/** What one lookup of a watched order read. */
export interface CheckResult extends ServiceReading {
  paymentStatus: string;
  /** How long until the next lookup if the status is still pending. */
  nextCheckInMs: number;
}

/** A callback that threw (or ran past its time), and when to try it again. */
export interface DeliveryFailure {
  /** How long until the callback is due again. */
  retryInMs: number;
  /** A short description without personal data, such as the error's name. */
  error: string;
}

/**
 * A checkout the merchant's server created (`relay.checkouts.create`), as the
 * journal keeps it: what it sells, for which reference, until when, and a
 * keyed digest of its client secret, never the secret itself.
 */
export interface JournalCheckout {
  /** `cs_` and 24 base64url characters. */
  id: string;
  /** The keyed digest of the client secret (tokens/checkout-secret.ts). */
  secretDigest: string;
  /** The merchant's reference: the checkout's orders are the orders of this reference. */
  reference: string;
  /** The line items as the merchant gave them, `sku` included. */
  lineItems: readonly CheckoutLineItem[];
  /** The merchant's own notes: never shown to a browser. */
  metadata: Readonly<Record<string, string>>;
  /** What the line items cost together. */
  amount: OrderAmount;
  /** The only origin whose pages may use the client secret, or `null` for any. */
  origin: string | null;
  /** When it was created and when it stops taking new attempts, epoch ms on the relay's clock. */
  createdAt: number;
  expiresAt: number;
}

/** One line of a server-created checkout: a product, how many, at what unit price, and the merchant's sku. */
export interface CheckoutLineItem {
  name: string;
  quantity: number;
  unitPrice: PricedLineItem['product']['price'];
  sku: string | null;
}

/** The storage every journal offers, in memory, in SQLite or in PostgreSQL; lookups are shared through it too. Times are the journal's own. */
export interface Journal extends LookupJournal {
  /** Records a checkout attempt before the service is called; a second intent with the same key is ignored. */
  recordIntent(intent: CreateIntent): Promise<void>;
  /** Records the service's answer to a create and drops the create body with the customer's details. */
  recordCreated(idempotencyKey: string, answer: CreateAnswer): Promise<void>;
  /** Forgets an intent the service refused for good (no order exists); `false` if it was already created. */
  discardIntent(idempotencyKey: string): Promise<boolean>;
  /** Leases up to `limit` due entries that no live process holds: creates to resend, orders to look up. */
  claimDue(owner: string, options: ClaimOptions): Promise<Claimed<PendingEntry>[]>;
  /** Extends a lease the caller still holds to `leaseMs` from now; `false` if it lost it. */
  renewLease(idempotencyKey: string, owner: string, leaseMs: number): Promise<boolean>;
  /**
   * Records a lookup by the lease holder and releases the lease; settles the
   * entry on a final status, leased to the holder `SETTLER_DELIVERS_FIRST_MS`
   * more so that its delivery comes first (other processes claim it after).
   */
  recordChecked(idempotencyKey: string, owner: string, result: CheckResult): Promise<boolean>;
  /** Releases the lease without news (the service was busy or down): due again in `dueInMs`. */
  deferCheck(idempotencyKey: string, owner: string, dueInMs: number): Promise<boolean>;
  /** Settles an entry the watcher gave up on (past the total bound) as `expired`. */
  recordExpired(idempotencyKey: string, owner: string): Promise<boolean>;
  /** Settles the order a browser lookup through the relay saw final (`by` the process that read it); `false` if it was not being watched. */
  settleFromBrowserLookup(
    orderId: string,
    paymentStatus: string,
    reading?: ServiceReading,
    /** The process whose lookup read it: it delivers the order first, as after `recordChecked`. */
    by?: string,
  ): Promise<boolean>;
  /**
   * Owes `onPaid` for an order the journal settled `expired` (`previousOutcome:
   * 'expired'`), or failed as unknown to the service (`previousOutcome: null`),
   * and the service now shows paid; `false` unless it was settled so, or while
   * a delivery holds it (the next lookup or sweep tries again). Once only.
   */
  recordLatePayment(orderId: string, reading?: ServiceReading, by?: string): Promise<boolean>;
  /** The orders recorded within the last `withinMs` (unanswered creates left out), newest first, at most `limit` (after `after`, for the next page): what a reconciliation compares. */
  ordersWithin(options: OrdersWithinOptions): Promise<JournalOrder[]>;
  /** The orders settled `expired` (or failed as unknown to the service) within the last `withinMs`, oldest first, at most `limit`: what a sweep looks for. */
  expiredOrders(options: { withinMs: number; limit: number }): Promise<ExpiredOrder[]>;
  /**
   * Leases the fleet's one sweep of the service to `owner` for `leaseMs`, if no
   * live process holds it and none began within `everyMs`; `true` when taken.
   */
  claimSweep(owner: string, options: { leaseMs: number; everyMs: number }): Promise<boolean>;
  /** Releases the sweep `owner` holds; `swept` records it as the last one, so the next is `everyMs` away. */
  finishSweep(owner: string, swept: boolean): Promise<void>;
  /** Leases up to `limit` settled entries whose callback is due. */
  claimUndelivered(owner: string, options: ClaimOptions): Promise<Claimed<SettledEntry>[]>;
  /** Marks the callback delivered, only by the caller holding the lease; `true` exactly once per entry. */
  markDelivered(idempotencyKey: string, owner: string): Promise<boolean>;
  /** Records a callback that threw (or ran past its time) and releases the lease for `retryInMs`. */
  recordDeliveryFailure(idempotencyKey: string, owner: string, failure: DeliveryFailure): Promise<boolean>;
  /** The entry for a key, or `undefined`. */
  get(idempotencyKey: string): Promise<JournalEntry | undefined>;
  /** The attempt under a key, or the one holding a prompt key (`CreateIntent.prompt`); `undefined` when none. */
  readAttempt(by: { idempotencyKey: string } | { promptKey: string }): Promise<JournalAttempt | undefined>;
  /** The newest orders first: ids, statuses and delivery times only. */
  listRecent(limit: number): Promise<FulfilmentSummary[]>;
  /** One order with what it was for, by its order id or its key; `undefined` when the journal has none. */
  readOrder(by: { orderId: string } | { idempotencyKey: string }): Promise<JournalOrder | undefined>;
  /** The orders of a merchant's reference, newest first, at most `limit`; unanswered creates left out. */
  ordersByReference(reference: string, limit: number): Promise<JournalOrder[]>;
  /** Records the service's total of an order journalled before amounts were kept; a recorded amount stays. */
  recordAmount(idempotencyKey: string, amount: OrderAmount): Promise<boolean>;
  /** Records a checkout the merchant's server created; an id recorded already is left as it is. */
  recordCheckout(checkout: JournalCheckout): Promise<void>;
  /** The checkout with this id, or `undefined`. */
  readCheckout(id: string): Promise<JournalCheckout | undefined>;
  /** Deletes entries delivered, and checkouts expired, more than `retentionMs` ago; returns how many. */
  prune(options: { retentionMs: number }): Promise<number>;
  /** Closes the store; the journal is unusable afterwards. */
  close(): Promise<void>;
  /**
   * The same journal on connections of the watcher's own, where the store
   * has a pool (PostgreSQL): the watcher and the deliveries use it, so they
   * never take the connections a shopper's request needs.
   */
  watcherConnections?(): Journal;
}

/**
 * How long the process whose lookup settled an order keeps it, for its own
 * `claimUndelivered`: it holds the order's customer from that lookup, so its
 * delivery needs no second lookup; another process takes the order after.
 */
export const SETTLER_DELIVERS_FIRST_MS = 5_000;
/** What the settler's name in a lease ends with while the order waits for its delivery (not a delivery lease). */
export const SETTLER_LEASE_SUFFIX = ':settled';

/** How long delivered orders stay in the journal unless the merchant says otherwise: 30 days. */
export const DEFAULT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
/** The failure code of an order settled failed because the service did not know it; a payment found later lifts it. */
export const UNKNOWN_ORDER_FAILURE = 'unknown_order';
