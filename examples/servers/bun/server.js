import { Hono } from 'hono';
import { port, relay, sandbox } from '../shop.js';

const app = new Hono();
// Bun.serve hands app.fetch its server, which Hono keeps as c.env: server.requestIP is the
// socket's peer, which no header a client sends can change.
app.on(['POST', 'OPTIONS'], '/api/checkout/*', (c) =>
  relay.handle(c.req.raw, { clientAddress: c.env.requestIP(c.req.raw)?.address }),
);
app.all('/sandbox/*', (c) => sandbox.handle(c.req.raw));

Bun.serve({ fetch: app.fetch, port, hostname: '127.0.0.1' });
console.log(`Shop on http://127.0.0.1:${port}`);
