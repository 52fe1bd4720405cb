import { mkdirSync } from 'node:fs';
import Database from 'libsql';

// The shop's own database, beside the relay's journal: what the warehouse ships.
mkdirSync('.data', { recursive: true });
const database = new Database('.data/shop.db');
database.exec(`CREATE TABLE IF NOT EXISTS shipments (
  order_id TEXT PRIMARY KEY,
  paid_at INTEGER NOT NULL
)`);
// onPaid is called at least once: a repeat call for the same order must add nothing.
const addShipment = database.prepare(
  'INSERT INTO shipments (order_id, paid_at) VALUES (?, ?) ON CONFLICT (order_id) DO NOTHING',
);

/** The relay's onPaid: one shipment for the paid order, however many times it is called. */
export function shipOnce(order) {
  const { changes } = addShipment.run(order.id, order.settledAt);
  if (Number(changes) === 1) console.log(`Shipment recorded for order ${order.id}`);
}

/** Closes the shop's database, when the server stops. */
export function closeShipments() {
  database.close();
}
