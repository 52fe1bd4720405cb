/**
 * An order in snake_case with times in ISO 8601: what the merchant API
 * answers for `GET /v1/orders/{id}` and what a webhook's `data` carries.
 * Built field by field, so nothing the relay adds later reaches a shop's
 * backend unless it is written here.
 */
import type { OrderAmount } from '../../shared/wire.js';
import type { PricedLineItem } from '../pricing/priced-line-items.js';

/** What an order on the wire is read from (`relay.orders`' `CheckoutOrder` has every field). */
export interface WireOrderSource {
  readonly id: string;
  readonly outcome: string;
  readonly reference: string | null;
  readonly metadata: Readonly<Record<string, string>>;
  readonly lineItems: readonly PricedLineItem[];
  readonly amount: Readonly<OrderAmount> | null;
  readonly paymentStatus: string | null;
  readonly failureCode: string | null;
  readonly otherPaidOrderIds: readonly string[];
  readonly previousOutcome: 'expired' | null;
  readonly createdAt: number;
  readonly settledAt: number | null;
  readonly deliveredAt: number | null;
}

/** An instant (epoch ms) in ISO 8601, `null` kept. */
export function isoTime(ms: number): string;
export function isoTime(ms: number | null): string | null;
export function isoTime(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** A priced line item as the wire shows it: name, quantity, unit price. */
function pricedLineOnWire(item: PricedLineItem) {
  const { name, quantity, price } = item.product;
  return { name, quantity, unit_price: { currency: price.currency, value: price.value } };
}

/** An order on the wire (`GET /v1/orders/{id}`, each of `GET /v1/orders?reference=`, a webhook's `data`). */
export function orderOnWire(order: WireOrderSource) {
  return {
    id: order.id,
    outcome: order.outcome,
    reference: order.reference,
    metadata: { ...order.metadata },
    line_items: order.lineItems.map(pricedLineOnWire),
    amount: order.amount && { currency: order.amount.currency, value: order.amount.value },
    payment_status: order.paymentStatus,
    failure_code: order.failureCode,
    other_paid_order_ids: [...order.otherPaidOrderIds],
    previous_outcome: order.previousOutcome,
    created_at: isoTime(order.createdAt),
    settled_at: isoTime(order.settledAt),
    delivered_at: isoTime(order.deliveredAt),
  };
}
