/**
 * Reconciliation: every difference between what the service holds and what
 * the journal delivered, for `pay-checkout reconcile`. The service's orders
 * are paged newest first (256 a page) back to the start of the period, and
 * the journal's orders of the period read 1,000 at a time; each difference is
 * confirmed by a lookup of the order (the service's word on its payment)
 * before it is reported, unless the page already shows it paid. Order ids and statuses only: the pages carry the
 * customer's name and number, and none of it leaves this module.
 */
import type { Journal, JournalOrder } from '../journal/journal.js';
import type { ServiceClient } from '../service-client/service-client.js';
import { ServiceNotFoundError } from '../service-client/service-errors.js';
import type { Order } from '../service-client/service-schemas.js';

/** How far past the start of the period both sides are read: the service's clock and the journal's may differ. */
const CLOCK_SLACK_MS = 60 * 60 * 1000;
/** Journal orders read per query: each query stays short, well within a database's statement time-out. */
const JOURNAL_PAGE_SIZE = 1_000;
/** Orders asked for per page: the most the service gives. */
const PAGE_SIZE = 256;

/** One difference between the service and the journal. */
export type ReconcileDifference =
  /** Paid at the service; the journal has not delivered it to `onPaid` (pending, owed, or settled otherwise). */
  | {
      kind: 'paid_not_delivered';
      orderId: string;
      journalOutcome: JournalOrder['outcome'];
      delivered: boolean;
    }
  /** Delivered to `onPaid`, but the service does not show it paid (`serviceStatus` `unknown`: it does not know it). */
  | { kind: 'delivered_not_paid'; orderId: string; serviceStatus: string }
  /** At the service, but not in the journal: created without this relay's journal, or pruned from it. */
  | { kind: 'unknown_to_journal'; orderId: string; serviceStatus: string };

/** What a reconciliation found. */
export interface Reconciliation {
  differences: ReconcileDifference[];
  /** Orders the service holds from the start of the period on. */
  serviceOrders: number;
  /** Orders the journal holds from the start of the period on. */
  journalOrders: number;
}

/** Compares the service's orders and the journal's from `since` (epoch ms) to `now`. */
export async function reconcile(
  client: ServiceClient,
  journal: Journal,
  { since, now }: { since: number; now: number },
): Promise<Reconciliation> {
  const atService = await serviceOrdersSince(client, since - CLOCK_SLACK_MS);
  const inJournal = await journalOrdersWithin(journal, Math.max(0, now - since) + CLOCK_SLACK_MS);
  const differences: ReconcileDifference[] = [];
  let serviceOrders = 0;
  for (const order of atService.values()) {
    if (Date.parse(order.initiated_at) < since) continue;
    serviceOrders += 1;
    const difference = await serviceSide(client, journal, order, inJournal.get(order.id));
    if (difference) differences.push(difference);
  }
  let journalOrders = 0;
  for (const order of inJournal.values()) {
    if (order.createdAt < since) continue;
    journalOrders += 1;
    if (order.outcome !== 'paid' || order.deliveredAt === null) continue;
    // A page that shows it paid is the service's word enough: only the others are looked up.
    if (showsPaid(atService.get(order.orderId as string))) continue;
    const status = await confirmedStatus(client, order.orderId as string);
    if (status !== 'paid') {
      differences.push({
        kind: 'delivered_not_paid',
        orderId: order.orderId as string,
        serviceStatus: status,
      });
    }
  }
  return { differences, serviceOrders, journalOrders };
}

/** The journal's orders of the last `withinMs` that have an order id, by id, read a page at a time. */
async function journalOrdersWithin(journal: Journal, withinMs: number): Promise<Map<string, JournalOrder>> {
  const orders = new Map<string, JournalOrder>();
  let after: JournalOrder | undefined;
  for (;;) {
    const page = await journal.ordersWithin({
      withinMs,
      limit: JOURNAL_PAGE_SIZE,
      ...(after ? { after } : {}),
    });
    for (const order of page) if (order.orderId !== null) orders.set(order.orderId, order);
    after = page.at(-1);
    if (page.length < JOURNAL_PAGE_SIZE || !after) return orders;
  }
}

/** The service's orders, newest first, back to `since`, by id. */
async function serviceOrdersSince(client: ServiceClient, since: number): Promise<Map<string, Order>> {
  const orders = new Map<string, Order>();
  for await (const order of client.orders.list({ pageSize: PAGE_SIZE })) {
    if (Date.parse(order.initiated_at) < since) break;
    orders.set(order.id, order);
  }
  return orders;
}

/** What a service order's side shows: unknown to the journal, or paid and not delivered as paid. */
async function serviceSide(
  client: ServiceClient,
  journal: Journal,
  order: Order,
  journalled: JournalOrder | undefined,
): Promise<ReconcileDifference | undefined> {
  // Outside the period read, perhaps: asked by id before it is called unknown.
  const known = journalled ?? (await journal.readOrder({ orderId: order.id }));
  if (!known) {
    return { kind: 'unknown_to_journal', orderId: order.id, serviceStatus: statusShown(order) };
  }
  if (known.outcome === 'paid' && known.deliveredAt !== null) return undefined;
  if (!looksPaid(order) || (await confirmedStatus(client, order.id)) !== 'paid') return undefined;
  return {
    kind: 'paid_not_delivered',
    orderId: order.id,
    journalOutcome: known.outcome,
    delivered: known.deliveredAt !== null,
  };
}

/** Whether a page shows the order paid: its payment paid, or, on a page without payments, the order completed. */
function showsPaid(order: Order | undefined): boolean {
  if (!order) return false;
  return order.payment ? order.payment.status === 'paid' : order.status === 'completed';
}

/** Whether a page shows the order completed: its payment may be paid. */
function looksPaid(order: Order): boolean {
  return order.payment?.status === 'paid' || order.status === 'completed';
}

/** The status a page shows: the payment's when it has one, else the order's. */
function statusShown(order: Order): string {
  return order.payment?.status ?? order.status;
}

/** The payment status a lookup reads now; `unknown` when the service does not know the order. */
async function confirmedStatus(client: ServiceClient, orderId: string): Promise<string> {
  try {
    return (await client.orders.lookup(orderId)).order.payment.status;
  } catch (error) {
    if (error instanceof ServiceNotFoundError) return 'unknown';
    throw error;
  }
}
