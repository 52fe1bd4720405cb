import { createClient } from 'redis';
import { createCheckoutRelay, createRedisRateLimitStore } from '../../src/server/node.js';
import { relayOptions } from './relay-options.js';

// Every process of the fleet: the same PAY_LOOKUP_SECRET (in relayOptions) and one Redis,
// so a lookup token and a limit hold whichever process a request reaches.
const redis = createClient({ url: process.env.REDIS_URL });
await redis.connect();

export const relay = createCheckoutRelay({
  ...relayOptions,
  trustProxy: 1,
  rateLimit: { store: createRedisRateLimitStore(redis) },
});
export const closeRedis = () => redis.quit();
