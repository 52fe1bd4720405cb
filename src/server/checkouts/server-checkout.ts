/**
 * A checkout the merchant's server created, as `relay.checkouts` answers it:
 * what it sells, for which reference, until when, and where it stands. Its
 * status is read from the orders of its reference, so two checkouts with one
 * reference are one purchase: once any of its orders is paid, it is paid.
 */
import type { Currency } from '../../shared/service-contract.js';
import type { JournalCheckout, JournalOrder, OrderAmount } from '../journal/journal.js';
import type { PricedCart } from '../pricing/priced-cart.js';
import type { PricedLineItem } from '../pricing/priced-line-items.js';

/** One line of a server-created checkout. */
export interface ServerCheckoutLineItem {
  name: string;
  quantity: number;
  unitPrice: { currency: Currency; value: number };
  /** The merchant's product code, or `null`. */
  sku: string | null;
}

/** Where a checkout stands: open for attempts, paid (any order of its reference), or past its expiry. */
export type ServerCheckoutStatus = 'open' | 'paid' | 'expired';

/** A server-created checkout, as `relay.checkouts.get` answers it. */
export interface ServerCheckout {
  /** `cs_…` */
  id: string;
  status: ServerCheckoutStatus;
  /** The merchant's reference: the checkout's orders are this reference's. */
  reference: string;
  /** The merchant's own notes, within `priceCart`'s metadata limits; never shown to a browser. */
  metadata: Record<string, string>;
  lineItems: ServerCheckoutLineItem[];
  /** The sum of the line items. */
  amount: OrderAmount;
  /** When set, only pages of this origin may use the client secret. */
  origin: string | null;
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms: no new attempt after it. */
  expiresAt: number;
  /** The orders of its reference, newest first. */
  orderIds: string[];
  /** The first of them paid, or `null`. */
  paidOrderId: string | null;
}

/** What `relay.checkouts.create` takes. */
export interface ServerCheckoutInput {
  lineItems: readonly {
    name: string;
    quantity: number;
    unitPrice: { currency: Currency; value: number };
    sku?: string | null;
  }[];
  /** The merchant's reference (1–64 of `[A-Za-z0-9_.:-]`): required. */
  reference: string;
  /** At most 20 keys of 40 characters, string values of 500. */
  metadata?: Readonly<Record<string, string>>;
  /** 300 to 86 400; default 3 600. */
  expiresInSeconds?: number;
  /** One of the relay's `allowedOrigins`: then only its pages may use the client secret. */
  origin?: string | null;
}

/** `relay.checkouts`: checkouts the merchant's server creates, and reads back. */
export interface ServerCheckouts {
  /** Records a new checkout and answers it with its client secret, the one thing a page pays it with. */
  create(input: ServerCheckoutInput): Promise<ServerCheckout & { clientSecret: string }>;
  /** The checkout with this id, its status read now, or `undefined`. */
  get(id: string): Promise<ServerCheckout | undefined>;
}

/** The checkout `stored` as read at `now`, with `orders` (its reference's, newest first). */
export function serverCheckoutOf(
  stored: JournalCheckout,
  orders: readonly JournalOrder[],
  now: number,
): ServerCheckout {
  const paid = orders
    .filter((order) => order.outcome === 'paid' && order.orderId !== null)
    .sort((a, b) => (a.settledAt ?? a.createdAt) - (b.settledAt ?? b.createdAt));
  const paidOrderId = paid[0]?.orderId ?? null;
  const status: ServerCheckoutStatus =
    paidOrderId !== null ? 'paid' : now >= stored.expiresAt ? 'expired' : 'open';
  return {
    id: stored.id,
    status,
    reference: stored.reference,
    metadata: { ...stored.metadata },
    lineItems: stored.lineItems.map((item) => ({
      name: item.name,
      quantity: item.quantity,
      unitPrice: { currency: item.unitPrice.currency, value: item.unitPrice.value },
      sku: item.sku,
    })),
    amount: { ...stored.amount },
    origin: stored.origin,
    createdAt: stored.createdAt,
    expiresAt: stored.expiresAt,
    orderIds: orders.flatMap((order) => (order.orderId === null ? [] : [order.orderId])),
    paidOrderId,
  };
}

/** The checkout as the create path charges it: its line items, reference and metadata, priced by the merchant's server. */
export function pricedCheckout(checkout: JournalCheckout): PricedCart {
  const lineItems: PricedLineItem[] = checkout.lineItems.map((item) => ({
    type: 'product',
    product: {
      name: item.name,
      price: { currency: item.unitPrice.currency, value: item.unitPrice.value },
      quantity: item.quantity,
    },
  }));
  return { lineItems, reference: checkout.reference, metadata: { ...checkout.metadata } };
}
