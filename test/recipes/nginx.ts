import { createServer } from 'node:http';
import { createCheckoutRelay } from '../../src/server/node.js';
import { relayOptions } from './relay-options.js';

// nginx on this machine, in front:
//   location /api/checkout/ {
//     proxy_pass http://127.0.0.1:3000;
//     proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
//   }
// The relay believes loopback (nginx) only, and takes the address nginx appended.
const relay = createCheckoutRelay({ ...relayOptions, trustProxy: ['loopback'] });

/** The shop's server behind nginx; listen on 127.0.0.1:3000. */
export const server = createServer(relay.node);
