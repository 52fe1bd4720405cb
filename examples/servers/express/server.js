import express from 'express';
import { port, relay, sandbox } from '../shop.js';

const app = express();
// Before any body parser: the relay and the sandbox read the body themselves.
app.use('/api/checkout', relay.node);
app.use('/sandbox', sandbox.node);
app.use(express.json()); // the rest of your app

app.listen(port, '127.0.0.1', () => console.log(`Shop on http://127.0.0.1:${port}`));
