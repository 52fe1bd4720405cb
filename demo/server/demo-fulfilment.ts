/**
 * The demo's merchant server hearing of payments: the journal
 * the relay records to (an SQLite file for `npm start`, memory in tests), the
 * demo's `onPaid`/`onFailed`/`onExpired`, and `GET /api/demo/fulfilments`,
 * which shows each order as the server sees it: its id and status, what
 * it was for as the callbacks receive it (reference, items, amount), and its
 * webhook events with their attempts (demo-webhooks.ts); nothing personal.
 */
import { errorResponse, jsonResponse } from '../../src/http/index.js';
import {
  type FulfilledOrder,
  type FulfilmentOptions,
  type Journal,
  type JournalOrder,
  openJournal,
} from '../../src/server/node.js';
import type { DemoFulfilments } from '../demo-config.js';
import { webhooksByOrder } from './demo-webhooks.js';

type Fulfilment = DemoFulfilments['fulfilments'][number];

/** Where `npm start` keeps its journal unless `PAY_JOURNAL_URL` says otherwise (`.data/` is ignored by git). */
export const DEFAULT_DEMO_JOURNAL_URL = 'sqlite:.data/pay-checkout.db';

/** Orders the page's merchant view shows. */
const SHOWN_ORDERS = 12;
/** Attempts of one checkout read to find its other payments: a checkout has a handful. */
const MAX_ATTEMPTS_READ = 100;

/** The demo's fulfilment: the relay's options, the page's endpoint, and the journal to close. */
export interface DemoFulfilment {
  /** `journal`, `onPaid`, `onFailed` and `onExpired` for `createCheckoutRelay`. */
  relayOptions: FulfilmentOptions;
  /** Answers `GET /api/demo/fulfilments`. */
  answer(request: Request): Promise<Response>;
  journal: Journal;
}

/** Opens the journal at `journalUrl` (rejects for an unknown scheme or a missing driver); `onFulfilled` hears each delivered order (the console, in `npm start`). */
export async function openDemoFulfilment(
  journalUrl: string,
  onFulfilled: (order: FulfilledOrder) => void = () => undefined,
): Promise<DemoFulfilment> {
  const journal = await openJournal(journalUrl);
  return {
    journal,
    // The demo ships nothing: its server only says what it would do.
    relayOptions: { journal, onPaid: onFulfilled, onFailed: onFulfilled, onExpired: onFulfilled },
    async answer(request) {
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        return errorResponse('methodNotAllowed', 'Use GET, HEAD.', { headers: { allow: 'GET, HEAD' } });
      }
      const recent = await journal.listRecent(SHOWN_ORDERS);
      const orders = await Promise.all(
        recent.map((summary) => journal.readOrder({ orderId: summary.orderId })),
      );
      const paidByReference = await paidOrdersByReference(journal, orders);
      const webhooks = await webhooksByOrder(journal);
      const body: DemoFulfilments = {
        fulfilments: recent.map((summary, index) => ({
          order_id: summary.orderId,
          status: summary.status,
          delivered_at: summary.deliveredAt === null ? null : new Date(summary.deliveredAt).toISOString(),
          ...whatItWasFor(orders[index]),
          ...paidTwice(summary, orders[index], paidByReference),
          webhooks: webhooks.get(summary.orderId) ?? [],
        })),
      };
      return jsonResponse(body, 200, { 'cache-control': 'no-store' });
    },
  };
}

/** The reference, items and amount of an order, as the callbacks receive them: names and quantities, no prices. */
function whatItWasFor(order: JournalOrder | undefined): Pick<Fulfilment, 'reference' | 'items' | 'amount'> {
  return {
    reference: order?.reference ?? null,
    items: (order?.lineItems ?? []).map(({ product }) => ({
      name: product.name,
      quantity: product.quantity,
    })),
    amount: order?.amount ?? null,
  };
}

/** The paid order ids of each reference among `orders`, read from the journal (every attempt, not only those shown). */
async function paidOrdersByReference(
  journal: Journal,
  orders: readonly (JournalOrder | undefined)[],
): Promise<Map<string, string[]>> {
  const references = new Set(
    orders.flatMap((order) => (order?.outcome === 'paid' && order.reference ? [order.reference] : [])),
  );
  const paid = new Map<string, string[]>();
  for (const reference of references) {
    const attempts = await journal.ordersByReference(reference, MAX_ATTEMPTS_READ);
    paid.set(
      reference,
      attempts.flatMap((attempt) => (attempt.outcome === 'paid' && attempt.orderId ? [attempt.orderId] : [])),
    );
  }
  return paid;
}

/** Whether a paid order's checkout was paid by another order too, and by which: order ids only. */
function paidTwice(
  summary: { orderId: string; status: Fulfilment['status'] },
  order: JournalOrder | undefined,
  paidByReference: ReadonlyMap<string, readonly string[]>,
): Pick<Fulfilment, 'paid_twice' | 'other_paid_order_ids'> {
  const others =
    summary.status === 'paid' && order?.reference
      ? (paidByReference.get(order.reference) ?? []).filter((orderId) => orderId !== summary.orderId)
      : [];
  return { paid_twice: others.length > 0, other_paid_order_ids: others };
}
