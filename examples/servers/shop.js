import { createSandbox, SANDBOX_KEYS } from 'pay-checkout/sandbox';
import { createCheckoutRelay } from 'pay-checkout/server';
import { priceCart } from './catalogue.js';

export const port = Number(process.env.PORT ?? 3000);

// In development the sandbox, mounted at /sandbox beside the relay, stands in for the payments
// service. In production set PAY_API_BASE_URL and PAY_SECRET_KEY, and mount no sandbox.
export const sandbox = createSandbox({ basePath: '/sandbox' });

export const relay = createCheckoutRelay({
  secretKey: process.env.PAY_SECRET_KEY ?? SANDBOX_KEYS.secret,
  baseUrl: process.env.PAY_API_BASE_URL ?? `http://127.0.0.1:${port}/sandbox`,
  lookupSecret: process.env.PAY_LOOKUP_SECRET,
  priceCart,
});
