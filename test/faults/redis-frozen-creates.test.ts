/**
 * A frozen Redis costs the shoppers one wait, not one each. A real
 * redis-server holds the relay's limits; it is stopped with SIGSTOP (its
 * connections stay open, nothing answers) and 20 creates arrive at once, each
 * from its own address and number. The store waits at most 1 s on Redis: the
 * first wait to give up lets every other one go at once to this process's
 * memory. The store's timers are counted, not the wall clock: one wait runs
 * out, the others are let go before theirs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient } from 'redis';
import { createRedisRateLimitStore } from '../../src/server/index.js';
import { systemClock } from '../../src/shared/clock.js';
import { customerPayingFrom } from '../fixtures/checkout-data.js';
import { type RedisServer, redisSkipReason, startRedis } from '../fixtures/redis.js';
import { createRequest, intent, relayStack } from '../fixtures/relay.js';

/** The store's wait on Redis (redis-rate-limit-store.ts). */
const ANSWER_TIMEOUT_MS = 1_000;
const CREATES = 20;

describe('creates while Redis is frozen', { skip: redisSkipReason(), timeout: 60_000 }, () => {
  const { events, relayWith } = relayStack();
  let redis: RedisServer;
  before(async () => {
    redis = await startRedis();
  });
  after(() => redis?.stop());

  it(`${CREATES} creates at once cost one wait on Redis in all, then go to memory at once`, async () => {
    const client = createClient({ url: redis.url });
    client.on('error', () => undefined);
    await client.connect();
    /** The store's waits on Redis that ran out. */
    let waitsRunOut = 0;
    const timers = {
      setTimeout: (callback: () => void, ms: number) =>
        systemClock.setTimeout(() => {
          if (ms === ANSWER_TIMEOUT_MS) waitsRunOut += 1;
          callback();
        }, ms),
      clearTimeout: systemClock.clearTimeout,
    };
    const relay = relayWith({ rateLimit: { store: createRedisRateLimitStore(client, { clock: timers }) } });
    const create = async (index: number) => {
      const address = `198.18.7.${index}`;
      const body = intent(customerPayingFrom(`024${2_000_000 + index}`));
      const response = await relay.create(createRequest(body), { clientAddress: address });
      await response.arrayBuffer();
      return response.status;
    };
    try {
      assert.equal(await create(0), 200, 'a create on a healthy Redis');
      events.length = 0;

      redis.pause();
      const statuses = await Promise.all(Array.from({ length: CREATES }, (_, index) => create(index + 1)));
      assert.deepEqual(statuses, new Array(CREATES).fill(200), 'every create answered, from memory');
      assert.equal(waitsRunOut, 1, 'one wait on Redis ran out; the others were let go with it');
      assert.deepEqual(
        events
          .filter((event) => event.type === 'warning')
          .map((event) => event.type === 'warning' && event.code),
        ['rate_limit_store_failed'],
      );
    } finally {
      redis.resume();
      await client.quit().catch(() => client.destroy());
    }
  });
});
