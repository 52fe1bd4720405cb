/**
 * The merchant relay limits creates and lookups per client address. Its handlers are called with real `Request`s in
 * front of an in-process sandbox (test/fixtures/relay.ts); a real proxy
 * where the wire must break, the Node listener over real HTTP where the
 * socket is the point.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMemoryRateLimitStore } from '../../../src/server/limits/memory-rate-limit-store.js';
import { CLIENT, createRequest, errorOf, intent, lookupRequest, relayStack } from '../../fixtures/relay.js';
import { clockReading } from '../../fixtures/relay-clock.js';

describe('createCheckoutRelay', () => {
  const { events, relayWith } = relayStack();

  describe('rate limits', () => {
    it('a flood of creates gets 429 with Retry-After, and the bucket refills', async () => {
      let now = 1_000_000;
      events.length = 0;
      const relay = relayWith({
        rateLimit: { create: { capacity: 3, refillPerMinute: 6 } },
        clock: clockReading(() => now),
      });
      const flood = [];
      for (let index = 0; index < 5; index++) {
        flood.push(await relay.create(createRequest(intent({ customer_data: {} })), CLIENT));
      }
      assert.deepEqual(
        flood.map((response) => response.status),
        [400, 400, 400, 429, 429],
      );
      const limited = flood[3] as Response;
      assert.equal(limited.headers.get('retry-after'), '10');
      assert.equal((await errorOf(limited)).code, 'rate_limited');
      assert.ok(
        events.some((event) => event.type === 'rate_limited' && event.clientKey === CLIENT.clientAddress),
      );

      // Another address has its own bucket.
      const neighbour = await relay.create(createRequest(intent()), { clientAddress: '203.0.113.9' });
      assert.equal(neighbour.status, 200);

      now += 10_000;
      const after = await relay.create(createRequest(intent()), CLIENT);
      assert.equal(after.status, 200, 'one token came back after 10 s');
      assert.equal((await relay.create(createRequest(intent()), CLIENT)).status, 429);
    });

    it('limits lookups on their own, more loosely', async () => {
      let now = 5_000_000;
      const relay = relayWith({
        rateLimit: { create: { capacity: 1, refillPerMinute: 1 } },
        clock: clockReading(() => now),
      });
      const body = { order_id: 'or_abc', lookup_token: 'x'.repeat(43) };
      const statuses = new Set<number>();
      for (let index = 0; index < 120; index++)
        statuses.add((await relay.lookup(lookupRequest(body), CLIENT)).status);
      assert.deepEqual([...statuses], [403]);
      const limited = await relay.lookup(lookupRequest(body), CLIENT);
      assert.equal(limited.status, 429);
      assert.equal(limited.headers.get('retry-after'), '1');
      now += 500;
      assert.equal((await relay.lookup(lookupRequest(body), CLIENT)).status, 403);
    });

    it('reads the address from clientAddress; with no address known, no two shoppers share a bucket', async () => {
      events.length = 0;
      const unknown = relayWith({ rateLimit: { create: { capacity: 1, refillPerMinute: 1 } } });
      for (let shopper = 0; shopper < 5; shopper++) {
        assert.equal((await unknown.create(createRequest(intent({ customer_data: {} })))).status, 400);
      }
      assert.equal(
        events.filter((event) => event.type === 'warning' && event.code === 'rate_limit_no_client_address')
          .length,
        1,
      );
      const store = createMemoryRateLimitStore();
      const behindProxy = relayWith({
        rateLimit: {
          create: { capacity: 1, refillPerMinute: 1 },
          store,
          clientAddress: (request) => request.headers.get('x-forwarded-for') ?? undefined,
        },
      });
      const from = (address: string) =>
        behindProxy.create(
          createRequest(intent({ customer_data: {} }), { headers: { 'x-forwarded-for': address } }),
        );
      assert.equal((await from('192.0.2.1')).status, 400);
      assert.equal((await from('192.0.2.2')).status, 400);
      assert.equal((await from('192.0.2.1')).status, 429);
      assert.equal(store.size, 2);
    });

    it('rateLimit: false turns both limits off; create: false only the create limit', async () => {
      const body = { order_id: 'or_abc', lookup_token: 'x'.repeat(43) };
      const off = relayWith({ rateLimit: false });
      const statuses = new Set<number>();
      for (let index = 0; index < 150; index++)
        statuses.add((await off.lookup(lookupRequest(body), CLIENT)).status);
      for (let index = 0; index < 15; index++) {
        statuses.add((await off.create(createRequest(intent({ customer_data: {} })), CLIENT)).status);
      }
      assert.deepEqual([...statuses].sort(), [400, 403]);
      const createOff = relayWith({
        rateLimit: { create: false, lookup: { capacity: 1, refillPerMinute: 1 } },
      });
      for (let index = 0; index < 15; index++) {
        assert.equal(
          (await createOff.create(createRequest(intent({ customer_data: {} })), CLIENT)).status,
          400,
        );
      }
      assert.equal((await createOff.lookup(lookupRequest(body), CLIENT)).status, 403);
      assert.equal((await createOff.lookup(lookupRequest(body), CLIENT)).status, 429);
    });

    it('the in-memory store stays bounded', async () => {
      const store = createMemoryRateLimitStore({ maxKeys: 100 });
      for (let index = 0; index < 1000; index++)
        await store.take(`k${index}`, { capacity: 1, refillPerMinute: 1 }, 0);
      assert.equal(store.size, 100);
    });
  });
});
