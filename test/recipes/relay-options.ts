/**
 * The shop's relay options every README recipe spreads: the key, the
 * service, the lookup secret from the environment, and the shop's prices.
 * No `onEvent`, as the README has none: the relay's warnings reach stderr,
 * where the outage test reads them.
 */
import type { CheckoutRelayOptions } from '../../src/server/node.js';
import { priceCart } from '../fixtures/relay.js';

/** What every recipe gives `createCheckoutRelay` besides its client-address setting. */
export const relayOptions: CheckoutRelayOptions = {
  secretKey: process.env.PAY_SECRET_KEY ?? '',
  baseUrl: process.env.PAY_API_BASE_URL ?? '',
  lookupSecret: process.env.PAY_LOOKUP_SECRET,
  priceCart,
};
