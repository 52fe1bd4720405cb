/**
 * The one checkout the relay benchmarks send: a shopper's intent, the price
 * the shop's server puts on it, and the order the relay asks the service for.
 */
import type { PricedLineItem } from '../src/server/index.js';

/** The shopper's name, number and network. */
export const customer = {
  customer_data: { name: 'Ama Mensah', phone_number: '+233241234567' },
  payment_method_data: { type: 'mobile_money', mobile_money: { issuer: 'mtn', number: '0241234567' } },
};

/** What the shop's `priceCart` answers. */
export const lineItems: PricedLineItem[] = [
  {
    type: 'product',
    product: { name: 'Kente scarf', price: { currency: 'ghs', value: 12_000 }, quantity: 1 },
  },
];

/** What the browser sends the relay. */
export const intent = { ...customer, cart: { items: [{ sku: 'scarf', quantity: 1 }] } };

/** What the relay sends the service for {@link intent}. */
export const creationInput = { execute_payment: true, ...customer, line_items: lineItems };

/** A bucket too big to refuse: the limiter's cost is counted, its refusals are not measured. */
export const UNLIMITED = { capacity: 1e12, refillPerMinute: 1e12 };
