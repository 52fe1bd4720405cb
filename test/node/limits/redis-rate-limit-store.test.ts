/**
 * In a fleet: `createRedisRateLimitStore(client)` keeps the relay's
 * limits in Redis, each decision one atomic script, so many relay processes
 * limit as one. Against a real redis-server the tests start on a free
 * loopback port and stop, whatever happens.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createRedisRateLimitStore, type RateLimitStore } from '../../../src/server/index.js';
import { customerPayingFrom } from '../../fixtures/checkout-data.js';
import { type RedisClient, type RedisServer, redisSkipReason, startRedis } from '../../fixtures/redis.js';
import { createAt, createRequest, errorOf, intent, relayStack } from '../../fixtures/relay.js';

const skip = redisSkipReason();
const childScript = fileURLToPath(new URL('../../fixtures/redis-relay-child.ts', import.meta.url));
const BUCKET = { capacity: 3, refillPerMinute: 6 };
const WINDOW = { limit: 3, windowMinutes: 10 };

/** A relay process of the fleet: its URL, and a way to stop it. */
async function startRelayProcess(store: string): Promise<{ url: string; stop(): Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', childScript, store], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let output = '';
  for await (const chunk of child.stdout ?? []) {
    output += String(chunk);
    if (output.includes('\n')) break;
  }
  const url = output.trim();
  if (!url.startsWith('http://')) throw new Error(`The relay process did not start: ${output}`);
  return {
    url,
    async stop() {
      if (child.exitCode !== null) return;
      child.stdin?.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await once(child, 'exit');
      clearTimeout(timer);
    },
  };
}

describe('the Redis rate-limit store', { skip }, () => {
  let redis: RedisServer;
  let client: RedisClient;
  let store: RateLimitStore;
  let run = 0;
  /** A key of this test's own, so the tests share one server without sharing buckets. */
  const key = (name: string) => `${name}:${++run}`;

  before(async () => {
    redis = await startRedis();
    client = await redis.connect();
    store = createRedisRateLimitStore(client);
  });
  after(() => redis?.stop());

  it('takes tokens as takeToken does, and says when the next one comes', async () => {
    const bucket = key('create:198.51.100.7');
    const decisions = [];
    for (let index = 0; index < 4; index++) decisions.push(await store.take(bucket, BUCKET, Date.now()));
    assert.deepEqual(
      decisions.map((decision) => decision.allowed),
      [true, true, true, false],
    );
    assert.deepEqual(
      decisions.slice(0, 3).map((decision) => decision.remaining),
      [2, 1, 0],
    );
    const refused = decisions[3];
    assert.ok(
      refused && refused.retryAfterMs > 9_000 && refused.retryAfterMs <= 10_000,
      String(refused?.retryAfterMs),
    );
    const ttl = await client.pTTL(`pay-checkout:limit:${bucket}`);
    assert.ok(ttl > 0 && ttl <= 31_000, `the bucket expires once full again (${ttl} ms)`);
  });

  it('counts window slots as takeWindowSlot does: a member once, a fourth refused until the first ages out', async () => {
    const window = key('prompt:hmac');
    const allowed = [];
    for (const member of ['a', 'b', 'a', 'c', 'd']) {
      allowed.push((await store.takeSlot(window, member, WINDOW, Date.now())).allowed);
    }
    assert.deepEqual(allowed, [true, true, true, true, false]);
    const refused = await store.takeSlot(window, 'e', WINDOW, Date.now());
    assert.ok(refused.retryAfterMs > 590_000 && refused.retryAfterMs <= 600_000);
    assert.equal(await client.zCard(`pay-checkout:limit:${window}`), 3);
  });

  it('says when a slot is new, and gives back only the slot it is asked to', async () => {
    const window = key('prompt:release');
    assert.equal((await store.takeSlot(window, 'a', WINDOW, Date.now())).newSlot, true);
    assert.equal((await store.takeSlot(window, 'a', WINDOW, Date.now())).newSlot, false);
    assert.equal((await store.takeSlot(window, 'b', WINDOW, Date.now())).remaining, 1);
    await store.releaseSlot?.(window, 'b');
    assert.deepEqual(await client.zRange(`pay-checkout:limit:${window}`, 0, -1), ['a']);
    assert.equal((await store.takeSlot(window, 'c', WINDOW, Date.now())).remaining, 1);
  });

  it('is atomic: 200 takes at once from two connections leave exactly the capacity through', async () => {
    const other = createRedisRateLimitStore(await redis.connect());
    const bucket = key('create:flood');
    const rule = { capacity: 50, refillPerMinute: 0.001 };
    const takes = Array.from({ length: 200 }, (_, index) =>
      (index % 2 ? store : other).take(bucket, rule, Date.now()),
    );
    const decisions = await Promise.all(takes);
    assert.equal(decisions.filter((decision) => decision.allowed).length, 50);
    const window = key('prompt:flood');
    const slots = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        (index % 2 ? store : other).takeSlot(window, `attempt-${index}`, WINDOW, Date.now()),
      ),
    );
    assert.equal(slots.filter((decision) => decision.allowed).length, 3);
  });

  it('loads its scripts again when Redis has forgotten them', async () => {
    await client.scriptFlush();
    assert.equal((await store.take(key('create:after-flush'), BUCKET, Date.now())).allowed, true);
    await client.scriptFlush();
    assert.equal((await store.takeSlot(key('prompt:after-flush'), 'a', WINDOW, Date.now())).allowed, true);
  });

  it('refuses a client it cannot use, at startup', () => {
    assert.throws(() => createRedisRateLimitStore({} as never), /node-redis client/);
  });

  describe('under a relay', () => {
    const { events, relayWith } = relayStack();

    it('holds the prompt limit of a number: 20 addresses, 3 prompts; no key holds the number', async () => {
      const relay = relayWith({
        rateLimit: { store: createRedisRateLimitStore(client, { prefix: 'relay-a:' }) },
      });
      const statuses: number[] = [];
      for (let address = 1; address <= 20; address++) {
        const request = createRequest(intent(customerPayingFrom('0267654321')));
        statuses.push((await relay.create(request, { clientAddress: `198.51.100.${address}` })).status);
      }
      assert.deepEqual(statuses, [200, 200, 200, ...new Array(17).fill(429)]);
      const keys = await client.keys('relay-a:*');
      assert.ok(keys.length > 0 && keys.every((name) => !name.includes('267654321')), keys.join(' '));
    });

    it('keeps limiting in this process’s memory while Redis is down, and says so', async () => {
      const doomed = await startRedis();
      const relay = relayWith({
        rateLimit: {
          create: { capacity: 2, refillPerMinute: 1 },
          store: createRedisRateLimitStore(await doomed.connect()),
        },
      });
      await doomed.stop();
      events.length = 0;
      const statuses: number[] = [];
      for (let index = 0; index < 4; index++) {
        const response = await relay.create(createRequest(intent({ customer_data: {} })), {
          clientAddress: '192.0.2.9',
        });
        statuses.push(response.status);
        if (response.status === 429) assert.equal((await errorOf(response)).code, 'rate_limited');
      }
      assert.deepEqual(statuses, [400, 400, 429, 429]);
      assert.ok(events.some((event) => event.type === 'warning' && event.code === 'rate_limit_store_failed'));
    });
  });

  describe('two relay processes on one redis-server', () => {
    it('limit a flood split across them as one: the default 10 creates a client, 3 prompts a number', async () => {
      const fleet = await Promise.all([startRelayProcess(redis.url), startRelayProcess(redis.url)]);
      const alone = await Promise.all([startRelayProcess('memory'), startRelayProcess('memory')]);
      try {
        const flood = async (relays: typeof fleet, address: string) => {
          const statuses = [];
          for (let index = 0; index < 40; index++) {
            const relay = relays[index % 2] as (typeof fleet)[number];
            statuses.push(await createAt(relay.url, address, intent({ customer_data: {} })));
          }
          return statuses.filter((status) => status !== 429).length;
        };
        assert.equal(await flood(fleet, '203.0.113.77'), 10, 'one bucket of 10 across the fleet');
        assert.equal(await flood(alone, '203.0.113.77'), 20, 'without Redis, each process keeps its own');

        const prompts = async (relays: typeof fleet, number: string) => {
          let accepted = 0;
          for (let address = 1; address <= 20; address++) {
            const relay = relays[address % 2] as (typeof fleet)[number];
            const status = await createAt(
              relay.url,
              `198.51.100.${address}`,
              intent(customerPayingFrom(number)),
            );
            if (status === 200) accepted++;
          }
          return accepted;
        };
        assert.equal(await prompts(fleet, '0271234567'), 3, 'three prompts to the number across the fleet');
        assert.equal(await prompts(alone, '0271234568'), 6, 'without Redis, three per process');
      } finally {
        await Promise.all([...fleet, ...alone].map((relay) => relay.stop()));
      }
    });
  });
});
