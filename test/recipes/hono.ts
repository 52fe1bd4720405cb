import { getConnInfo } from '@hono/node-server/conninfo';
import { Hono } from 'hono';
import { createCheckoutRelay } from '../../src/server/node.js';
import { relayOptions } from './relay-options.js';

const relay = createCheckoutRelay(relayOptions);

/** The shop's Hono app, with the relay under /api/checkout. */
export const app = new Hono();
// Hono hands the relay a Request only: pass the socket's peer, or no shopper has an address.
app.on(['POST', 'OPTIONS'], '/api/checkout/*', (c) =>
  relay.handle(c.req.raw, { clientAddress: getConnInfo(c).remote.address }),
);
// Behind a proxy, add trustProxy as for Express: the peer is then the proxy.
