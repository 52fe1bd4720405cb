import { Hono } from 'hono';
import { env } from 'hono/adapter';
import { createSandbox } from 'pay-checkout/sandbox';
import { createCheckoutRelay } from 'pay-checkout/server';
import { priceCart } from '../catalogue.js';

// In development PAY_API_BASE_URL is this app's /sandbox, with PAY_SECRET_KEY=sk_test_sandbox.
const sandbox = createSandbox({ basePath: '/sandbox' });
let relay;

const app = new Hono();
app.on(['POST', 'OPTIONS'], '/api/checkout/*', (c) => {
  // Workers hand the environment to each request: the relay is made with the first one.
  const { PAY_SECRET_KEY, PAY_API_BASE_URL, PAY_LOOKUP_SECRET } = env(c);
  relay ??= createCheckoutRelay({
    secretKey: PAY_SECRET_KEY,
    baseUrl: PAY_API_BASE_URL,
    lookupSecret: PAY_LOOKUP_SECRET,
    priceCart,
  });
  // Cloudflare's edge writes the shopper's address in cf-connecting-ip, over whatever a client
  // sent under that name. Anywhere else any client can send it: Bun and Deno have their own recipes.
  return relay.handle(c.req.raw, { clientAddress: c.req.header('cf-connecting-ip') });
});
app.all('/sandbox/*', (c) => sandbox.handle(c.req.raw));

// For Cloudflare Workers only, which serve the default export.
export default app;
