import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { Hono } from 'hono';
import { port, relay, sandbox } from '../shop.js';

const app = new Hono();
// Hono hands the relay a Request only: pass the socket's peer, or no shopper has an address.
app.on(['POST', 'OPTIONS'], '/api/checkout/*', (c) =>
  relay.handle(c.req.raw, { clientAddress: getConnInfo(c).remote.address }),
);
app.all('/sandbox/*', (c) => sandbox.handle(c.req.raw));

serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () =>
  console.log(`Shop on http://127.0.0.1:${port}`),
);
