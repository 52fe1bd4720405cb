import express from 'express';
import { createCheckoutRelay } from '../../src/server/node.js';
import { relayOptions } from './relay-options.js';

// One proxy (a load balancer) in front: the relay believes that one hop, like Express's
// `app.set('trust proxy', 1)`, and takes the address it appended to X-Forwarded-For.
const relay = createCheckoutRelay({ ...relayOptions, trustProxy: 1 });

/** The shop's Express app, with the relay under /api/checkout. */
export const app = express();
app.use('/api/checkout', relay.node); // before any body parser: the relay reads the body itself
