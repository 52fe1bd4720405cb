import { database } from './database.js';

// What the warehouse ships: one parcel a cart.
database.exec(`CREATE TABLE IF NOT EXISTS shipments (cart_id TEXT PRIMARY KEY NOT NULL,
  order_id TEXT NOT NULL UNIQUE, items TEXT NOT NULL, amount INTEGER NOT NULL, paid_at INTEGER NOT NULL)`);
// onPaid is called at least once, and one cart can be paid twice: a repeat adds nothing.
const addShipment = database.prepare(`INSERT INTO shipments (cart_id, order_id, items, amount, paid_at)
  VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`);
const shipmentOf = database.prepare('SELECT order_id FROM shipments WHERE cart_id = ?');

/** Whether the cart `reference` was paid: a paid cart takes no second payment, and the next choice opens a new cart. */
export const isPaid = (reference) => reference !== undefined && shipmentOf.get(reference) !== undefined;

/** The relay's onPaid: one shipment per cart, with what was paid for, however often it is called. */
export function shipOnce(order) {
  const items = order.lineItems.map(({ product }) => ({ name: product.name, quantity: product.quantity }));
  const { changes } = addShipment.run(
    order.reference,
    order.id,
    JSON.stringify(items),
    order.amount.value,
    order.settledAt,
  );
  if (Number(changes) === 1) {
    console.log(`Shipment recorded for order ${order.id}, cart ${order.reference}`);
  } else if (shipmentOf.get(order.reference)?.order_id !== order.id) {
    // The shopper paid this cart with a second number too: ship once, refund this one by hand
    // (the payments service's API has no refund; see docs/fulfilment.md).
    console.log(`Refund order ${order.id}: cart ${order.reference} was paid by another order`);
  }
}
