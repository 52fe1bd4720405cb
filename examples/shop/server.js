import { fileURLToPath } from 'node:url';
import express from 'express';
import { createSandbox, SANDBOX_KEYS } from 'pay-checkout/sandbox';
import { createCheckoutRelay, openJournal } from 'pay-checkout/server';
import { cartOf, fillCart } from './carts.js';
import { priceCart, priceItems } from './catalogue.js';
import { database } from './database.js';
import { isPaid, shipOnce } from './shipments.js';

const port = Number(process.env.PORT ?? 3000);
// Without a payments service this is development: the sandbox, mounted below, stands in for it.
const serviceUrl = process.env.PAY_API_BASE_URL;

const relay = createCheckoutRelay({
  secretKey: serviceUrl ? process.env.PAY_SECRET_KEY : SANDBOX_KEYS.secret,
  baseUrl: serviceUrl ?? `http://127.0.0.1:${port}/sandbox`,
  lookupSecret: process.env.PAY_LOOKUP_SECRET,
  priceCart,
  journal: await openJournal('sqlite:.data/pay-checkout.db'),
  onPaid: shipOnce,
});

const app = express();
// Before any body parser: the relay and the sandbox read the body themselves.
app.use('/api/checkout', relay.node);
if (!serviceUrl) app.use('/sandbox', createSandbox({ basePath: '/sandbox' }).node);
// The shopper's cart, kept here: the page reads it, and puts in it what the shopper chose.
app.get('/api/cart', (request, response) => {
  response.json(cartOf(request.headers.cookie) ?? { reference: null, items: [] });
});
app.put('/api/cart', express.json(), (request, response) => {
  try {
    priceItems(request.body?.items);
  } catch (error) {
    return response.status(400).json({ error: { message: error.message } });
  }
  // A paid cart is closed: what the shopper chooses next is a new cart, with a reference of its own.
  const newCart = isPaid(cartOf(request.headers.cookie)?.reference);
  const { cart, cookie } = fillCart(request.headers.cookie, request.body.items, { newCart });
  if (cookie) response.append('set-cookie', cookie);
  response.json(cart);
});
app.get('/pay-checkout.embed.js', (_request, response) => {
  response.sendFile(fileURLToPath(import.meta.resolve('pay-checkout/embed')));
});
app.use(express.static(fileURLToPath(new URL('public', import.meta.url))));

const server = app.listen(port, '127.0.0.1', (error) => {
  if (error) throw error;
  console.log(`Shop on http://127.0.0.1:${port}`);
});

// Stop taking requests and finish those in flight, then let the relay finish its calls and
// close its journal, then exit.
async function shutDown() {
  await new Promise((resolve) => server.close(resolve));
  await relay.close();
  database.close();
  process.exit(0);
}
process.once('SIGTERM', shutDown);
process.once('SIGINT', shutDown);
