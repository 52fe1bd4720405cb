import { randomBytes, randomUUID } from 'node:crypto';
import { database } from './database.js';

// The carts live on the shop's server. The browser holds only a secret session in an HttpOnly
// cookie: the cart's reference, which the shop ships by, is never the page's to choose.
database.exec(`CREATE TABLE IF NOT EXISTS carts (
  session TEXT PRIMARY KEY NOT NULL, reference TEXT NOT NULL UNIQUE, items TEXT NOT NULL)`);
const readCart = database.prepare('SELECT reference, items FROM carts WHERE session = ?');
const addCart = database.prepare('INSERT INTO carts (session, reference, items) VALUES (?, ?, ?)');
const updateCart = database.prepare('UPDATE carts SET items = ? WHERE session = ?');
const sessionOf = (cookieHeader) => /(?:^|;\s*)cart_session=([\w-]+)/.exec(cookieHeader ?? '')?.[1];

/** The cart `{ reference, items }` of the browser that sent `cookieHeader`, or undefined. */
export function cartOf(cookieHeader) {
  const row = readCart.get(sessionOf(cookieHeader) ?? '');
  return row && { reference: row.reference, items: JSON.parse(row.items) };
}

/** Puts `items` in the browser's cart, or in a new one: the cart, and the cookie to set if new. */
export function fillCart(cookieHeader, items, { newCart }) {
  if (!newCart && cartOf(cookieHeader)) {
    updateCart.run(JSON.stringify(items), sessionOf(cookieHeader));
    return { cart: cartOf(cookieHeader) };
  }
  const session = randomBytes(24).toString('base64url');
  const reference = `cart-${randomUUID()}`;
  addCart.run(session, reference, JSON.stringify(items));
  const cookie = `cart_session=${session}; Path=/; HttpOnly; SameSite=Strict; Max-Age=604800`;
  return { cart: { reference, items }, cookie };
}
