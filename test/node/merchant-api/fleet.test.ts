/**
 * In a fleet, wrong API keys are counted across processes: two merchant
 * APIs sharing one Redis rate-limit store (a real redis-server on a loopback
 * port) refuse an address once its guesses, wherever they landed, empty its
 * one bucket. A store that stops answering lifts no limit: each process
 * counts in its own memory meanwhile.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRedisRateLimitStore } from '../../../src/server/index.js';
import { createMerchantApi, type MerchantApi } from '../../../src/server/merchant-api/merchant-api.js';
import { API_KEY, merchantApiStack } from '../../fixtures/merchant-api.js';
import { type RedisServer, redisSkipReason, startRedis } from '../../fixtures/redis.js';

const skip = redisSkipReason();
const BUCKET = { capacity: 3, refillPerMinute: 6 };

/** A `GET /v1/orders?reference=` to `api` from `address` with `key`; its status. */
async function statusOf(api: MerchantApi, address: string, key: string): Promise<number> {
  const request = new Request('http://127.0.0.1/v1/orders?reference=order-801', {
    headers: { authorization: `Bearer ${key}` },
  });
  const response = await api(request, { clientAddress: address });
  await response.arrayBuffer();
  return response.status;
}

describe('wrong API keys in a fleet', { skip }, () => {
  let redis: RedisServer;

  before(async () => {
    redis = await startRedis();
  });
  after(() => redis?.stop());

  it('are counted once for every process sharing the Redis store', async () => {
    const stack = await merchantApiStack();
    const client = await redis.connect();
    const store = createRedisRateLimitStore(client);
    const fleet = [0, 1].map(() =>
      createMerchantApi({
        checkouts: stack.relay.checkouts,
        orders: stack.relay.orders,
        apiKey: API_KEY,
        failedAuthLimit: BUCKET,
        rateLimitStore: store,
      }),
    );
    const statuses: number[] = [];
    for (let guess = 0; guess < 5; guess++) {
      statuses.push(await statusOf(fleet[guess % 2] as MerchantApi, '203.0.113.80', `guess-${guess}`));
    }
    assert.deepEqual(statuses, [401, 401, 401, 429, 429], 'three wrong keys in all, then refused on both');
    assert.equal(await statusOf(fleet[0] as MerchantApi, '203.0.113.81', API_KEY), 200, 'another address');
  });

  it('keep being counted, in each process, while the store does not answer', async () => {
    // A server of its own to crash: the other test's clients never see it go.
    const crashing = await startRedis();
    const stack = await merchantApiStack();
    const client = await crashing.connect();
    const api = createMerchantApi({
      checkouts: stack.relay.checkouts,
      orders: stack.relay.orders,
      apiKey: API_KEY,
      failedAuthLimit: BUCKET,
      rateLimitStore: createRedisRateLimitStore(client),
    });
    await crashing.kill();
    try {
      const statuses: number[] = [];
      for (let guess = 0; guess < 4; guess++)
        statuses.push(await statusOf(api, '203.0.113.82', `guess-${guess}`));
      assert.deepEqual(statuses, [401, 401, 401, 429]);
    } finally {
      // A client that lost its server keeps reconnecting: this one is done with.
      client.destroy();
      await crashing.restart();
      await crashing.stop();
    }
  });
});
