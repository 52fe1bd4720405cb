import express from 'express';
import { port, relay, sandbox } from '../shop.js';

const app = express();
// Before any body parser: the relay and the sandbox read the body themselves.
app.use('/api/checkout', relay.node);
app.use('/sandbox', sandbox.node);
app.use(express.json()); // the rest of your app

const server = app.listen(port, '127.0.0.1', () => console.log(`Shop on http://127.0.0.1:${port}`));

// A deploy or a scale-down sends SIGTERM: take no new connections, let the requests in flight
// finish, then close the relay (its watcher and journal, when it has one), then exit.
process.once('SIGTERM', () => {
  server.close(async () => {
    await relay.close();
    process.exit(0);
  });
  console.log('Shop closing: finishing the requests in flight');
});
