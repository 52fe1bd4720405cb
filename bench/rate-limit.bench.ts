/**
 * What the shared Redis rate-limit store costs the relay,
 * against the in-memory store, in the same run:
 *
 * - the store alone, per create (a token from the client's bucket and a slot
 *   in the number's prompt window) and per lookup (a token from the client's
 *   lookup bucket): one after another (p50, p99, this process's CPU), and 64
 *   in flight at once (decisions per second);
 * - the relay, per create and per lookup in front of an in-process sandbox,
 *   with each store, one request of each in turn so the machine's drift hits
 *   both alike: the difference is what the shopper and the merchant's CPU
 *   pay for limits that hold across a fleet.
 *
 * Redis is a throwaway redis-server on loopback (no persistence). Its own
 * CPU is not in this process's figure. On a shared machine latencies move
 * with the neighbours; CPU per operation moves less.
 */
import {
  createMemoryRateLimitStore,
  createRedisRateLimitStore,
  type RateLimitStore,
} from '../src/server/index.js';
import { customerPayingFrom, UNLIMITED } from '../test/fixtures/checkout-data.js';
import { startRedis } from '../test/fixtures/redis.js';
import {
  createRequest,
  createTestRelay,
  inProcessSandbox,
  intent,
  lookupRequest,
} from '../test/fixtures/relay.js';
import { sandboxFetch } from '../test/fixtures/sandbox.js';
import { writeResults } from './lib.js';

const SEQUENTIAL = 4_000;
const CONCURRENT = 20_000;
const IN_FLIGHT = 64;
const RELAY_REQUESTS = 1_500;
const PROMPT_RULE = { limit: 3, windowMinutes: 10 };

const round = (value: number, digits = 1) => Number(value.toFixed(digits));
const percentile = (sorted: readonly number[], fraction: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;

/** Times `count` runs of `operation(i)` one after another: p50, p99 (µs) and CPU µs per run. */
async function timed(count: number, operation: (index: number) => Promise<unknown>) {
  for (let index = 0; index < Math.min(200, count); index++) await operation(-index - 1);
  const times: number[] = [];
  const cpuBefore = process.cpuUsage();
  for (let index = 0; index < count; index++) {
    const start = performance.now();
    await operation(index);
    times.push((performance.now() - start) * 1000);
  }
  const cpu = process.cpuUsage(cpuBefore);
  times.sort((a, b) => a - b);
  return {
    p50Microseconds: round(percentile(times, 0.5)),
    p99Microseconds: round(percentile(times, 0.99)),
    cpuMicroseconds: round((cpu.user + cpu.system) / count),
  };
}

/** Runs `count` operations with `IN_FLIGHT` at once: operations per second. */
async function throughput(count: number, operation: (index: number) => Promise<unknown>) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < count) await operation(next++);
    }),
  );
  return { inFlight: IN_FLIGHT, perSecond: Math.round((count / (performance.now() - started)) * 1000) };
}

/** The store's work for one create and one lookup, as the relay asks for it. */
async function measureStore(store: RateLimitStore, run: string) {
  const create = async (index: number) => {
    await store.take(`${run}:create:198.51.${(index >> 8) & 255}.${index & 255}`, UNLIMITED, Date.now());
    await store.takeSlot(`${run}:prompt:number-${index}`, `attempt-${index}`, PROMPT_RULE, Date.now());
  };
  const lookup = (index: number) =>
    Promise.resolve(store.take(`${run}:lookup:198.51.100.${index & 255}`, UNLIMITED, Date.now()));
  return {
    perCreate: await timed(SEQUENTIAL, create),
    perLookup: await timed(SEQUENTIAL, lookup),
    createsAtOnce: await throughput(CONCURRENT / 2, (index) => create(index + 1_000_000)),
    lookupsAtOnce: await throughput(CONCURRENT, lookup),
  };
}

/** A relay with `store`, in front of an in-process sandbox, limits on but never refusing. */
function relayOn(store: RateLimitStore) {
  const { url } = inProcessSandbox();
  return createTestRelay({
    baseUrl: url,
    fetch: sandboxFetch,
    rateLimit: { store, create: UNLIMITED, lookup: UNLIMITED },
  });
}

/** Per create and per lookup through the relay with each store, interleaved so drift hits both alike. */
async function measureRelays(stores: Record<'memory' | 'redis', RateLimitStore>) {
  const relays = { memory: relayOn(stores.memory), redis: relayOn(stores.redis) };
  const times = {
    memory: { create: [] as number[], lookup: [] as number[] },
    redis: { create: [] as number[], lookup: [] as number[] },
  };
  const cpu = { memory: { create: 0, lookup: 0 }, redis: { create: 0, lookup: 0 } };
  const tokens = new Map<string, { order_id: string; lookup_token: string }>();
  const time = async (
    name: 'memory' | 'redis',
    route: 'create' | 'lookup',
    run: () => Promise<Response> | Response,
  ) => {
    const cpuBefore = process.cpuUsage();
    const start = performance.now();
    const response = await run();
    await response.arrayBuffer();
    times[name][route].push((performance.now() - start) * 1000);
    const used = process.cpuUsage(cpuBefore);
    cpu[name][route] += used.user + used.system;
    if (response.status !== 200) throw new Error(`${route} answered ${response.status}`);
  };
  for (const name of ['memory', 'redis'] as const) {
    const created = await relays[name].create(createRequest(intent()), { clientAddress: '192.0.2.1' });
    const { order, lookup_token } = (await created.json()) as { order: { id: string }; lookup_token: string };
    tokens.set(name, { order_id: order.id, lookup_token });
  }
  for (let index = -200; index < RELAY_REQUESTS; index++) {
    for (const name of index % 2 ? (['memory', 'redis'] as const) : (['redis', 'memory'] as const)) {
      const number = `020${String((name === 'redis' ? 5_000_000 : 0) + 1_000_000 + index + 200).slice(-7)}`;
      const address = { clientAddress: `192.0.2.${index & 255}` };
      await time(name, 'create', () =>
        relays[name].create(createRequest(intent(customerPayingFrom(number))), address),
      );
      await time(name, 'lookup', () => relays[name].lookup(lookupRequest(tokens.get(name)), address));
    }
    if (index === -1) {
      // The first 200 rounds warm up: forgotten.
      for (const name of ['memory', 'redis'] as const) {
        times[name] = { create: [], lookup: [] };
        cpu[name] = { create: 0, lookup: 0 };
      }
    }
  }
  const figures = (name: 'memory' | 'redis', route: 'create' | 'lookup') => {
    const sorted = [...times[name][route]].sort((a, b) => a - b);
    return {
      p50Microseconds: round(percentile(sorted, 0.5)),
      p99Microseconds: round(percentile(sorted, 0.99)),
      cpuMicroseconds: round(cpu[name][route] / sorted.length),
    };
  };
  return {
    memory: { perCreate: figures('memory', 'create'), perLookup: figures('memory', 'lookup') },
    redis: { perCreate: figures('redis', 'create'), perLookup: figures('redis', 'lookup') },
  };
}

const redis = await startRedis();
try {
  const client = await redis.connect();
  const memoryStore = createMemoryRateLimitStore({ maxKeys: 100_000 });
  const redisStore = createRedisRateLimitStore(client);
  const store = { memory: await measureStore(memoryStore, 'm'), redis: await measureStore(redisStore, 'r') };
  const relay = await measureRelays({ memory: memoryStore, redis: redisStore });
  const extra = (route: 'perCreate' | 'perLookup') => ({
    p50Microseconds: round(relay.redis[route].p50Microseconds - relay.memory[route].p50Microseconds),
    cpuMicroseconds: round(relay.redis[route].cpuMicroseconds - relay.memory[route].cpuMicroseconds),
  });
  const redisCostToTheRelay = { perCreate: extra('perCreate'), perLookup: extra('perLookup') };
  const file = await writeResults('rate-limit', {
    settings: {
      sequentialOperations: SEQUENTIAL,
      relayRequests: RELAY_REQUESTS,
      perCreate: 'a token from the client bucket and a slot in the number’s prompt window (two round trips)',
      perLookup: 'a token from the client’s lookup bucket (one round trip)',
      redis: 'redis-server on loopback, no persistence, node-redis 6 over one connection; scripts by EVALSHA',
      sharedMachine: 'yes: other engineers’ tests ran at the same time; latencies vary with them',
      cpu: "this process's user + system time; redis-server's CPU is not counted",
    },
    store,
    relay,
    redisCostToTheRelay,
  });
  process.stdout.write(`${JSON.stringify({ store, relay, redisCostToTheRelay }, null, 2)}\nWrote ${file}\n`);
} finally {
  await redis.stop();
}
