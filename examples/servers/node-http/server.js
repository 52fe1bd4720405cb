import { createServer } from 'node:http';
import { toNodeListener } from 'pay-checkout/server';
import { port, relay, sandbox } from '../shop.js';

// One listener for both web-standard handlers: the relay answers …/orders and …/lookup.
const shop = toNodeListener((request, connection) =>
  new URL(request.url).pathname.startsWith('/sandbox/')
    ? sandbox.handle(request)
    : relay.handle(request, connection),
);

createServer(shop).listen(port, '127.0.0.1', () => console.log(`Shop on http://127.0.0.1:${port}`));
