/**
 * The demo's merchant server hearing of payments (contract §6): the journal
 * the relay records to (an SQLite file for `npm start`, memory in tests), the
 * demo's `onPaid`/`onFailed`/`onExpired`, and `GET /api/demo/fulfilments`,
 * which shows each order as the server sees it: its id and status, and what
 * it was for as the callbacks receive it (reference, items, amount); nothing
 * personal.
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

type Fulfilment = DemoFulfilments['fulfilments'][number];

/** Where `npm start` keeps its journal unless `PAY_JOURNAL_URL` says otherwise (`.data/` is ignored by git). */
export const DEFAULT_DEMO_JOURNAL_URL = 'sqlite:.data/pay-checkout.db';

/** Orders the page's merchant view shows. */
const SHOWN_ORDERS = 12;

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
      const body: DemoFulfilments = {
        fulfilments: recent.map((summary, index) => ({
          order_id: summary.orderId,
          status: summary.status,
          delivered_at: summary.deliveredAt === null ? null : new Date(summary.deliveredAt).toISOString(),
          ...whatItWasFor(orders[index]),
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
