import { Hono } from 'hono';
import { port, relay, sandbox } from '../shop.js';

const app = new Hono();
// Deno.serve hands app.fetch the connection's info, which Hono keeps as c.env: remoteAddr is the
// socket's peer, which no header a client sends can change.
app.on(['POST', 'OPTIONS'], '/api/checkout/*', (c) =>
  relay.handle(c.req.raw, { clientAddress: c.env.remoteAddr.hostname }),
);
app.all('/sandbox/*', (c) => sandbox.handle(c.req.raw));

const onListen = () => console.log(`Shop on http://127.0.0.1:${port}`);
Deno.serve({ port, hostname: '127.0.0.1', onListen }, app.fetch);
