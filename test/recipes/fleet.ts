import { createClient } from 'redis';
import { createCheckoutRelay, createRedisRateLimitStore } from '../../src/server/node.js';
import { relayOptions } from './relay-options.js';

// Every process of the fleet: the same PAY_LOOKUP_SECRET (in relayOptions) and one Redis,
// so a lookup token and a limit hold whichever process a request reaches.
const redis = createClient({ url: process.env.REDIS_URL });
await redis.connect();

/** This process's relay; every process of the fleet makes the same. */
export const relay = createCheckoutRelay({
  ...relayOptions,
  trustProxy: 1,
  rateLimit: { store: createRedisRateLimitStore(redis) },
});
/** Closes the Redis connection when the process stops. */
export const closeRedis = () => redis.quit();
