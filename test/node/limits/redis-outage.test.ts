/**
 * In a fleet: a Redis outage never stops or crashes a relay process.
 * Limits fall back to process memory with one warning and go back to Redis
 * when it returns, without a restart, whether or not the merchant attached an
 * `error` listener to the client. Against a real redis-server, crashed
 * (SIGKILL) under creates and started again on its port, and frozen
 * (SIGSTOP) as in a network partition.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createClient } from 'redis';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/index.js';
import { createRedisRateLimitStore } from '../../../src/server/index.js';
import { customerPayingFrom } from '../../fixtures/checkout-data.js';
import { type RedisServer, redisSkipReason, startRedis } from '../../fixtures/redis.js';
import { createAt, createRequest, intent, LOOKUP_SECRET, relayStack, SECRET } from '../../fixtures/relay.js';

const skip = redisSkipReason();
const childScript = fileURLToPath(new URL('../../fixtures/redis-relay-child.ts', import.meta.url));
/** The longest the store waits on Redis before memory decides (redis-rate-limit-store.ts). */
const ANSWER_TIMEOUT_MS = 1_000;
/** The relay's warning when its store fails (relay-limits.ts), as the console shows it. */
const STORE_WARNING = 'The rate-limit store failed';
/** No test sends more creates than this, whatever happens. */
const MAX_CREATES = 4_000;

/** A process running the README's fleet recipe, its stderr read line by line. */
interface FleetProcess {
  url: string;
  child: ChildProcess;
  /** What it printed on stderr. */
  errors: string[];
  /** Resolves once it has printed a line containing `text`; rejects after `timeoutMs` or if it exits. */
  printed(text: string, timeoutMs: number): Promise<void>;
  stop(): Promise<void>;
}

async function startFleetProcess(env: Record<string, string>): Promise<FleetProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', childScript, 'recipe'], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  const errors: string[] = [];
  const waiters = new Set<() => void>();
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (line) => {
    errors.push(line);
    for (const waiter of waiters) waiter();
  });
  const [line] = (await once(createInterface({ input: child.stdout as NodeJS.ReadableStream }), 'line')) as [
    string,
  ];
  if (!line.startsWith('http://')) throw new Error(`The fleet process did not start: ${line}`);
  return {
    url: line,
    child,
    errors,
    printed: (text, timeoutMs) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => done(new Error(`no "${text}" within ${timeoutMs} ms`)), timeoutMs);
        const onExit = () => done(new Error(`the process exited before printing "${text}"`));
        const check = () => {
          if (errors.some((printed) => printed.includes(text))) done();
        };
        function done(error?: Error) {
          clearTimeout(timer);
          waiters.delete(check);
          child.off('exit', onExit);
          error ? reject(error) : resolve();
        }
        waiters.add(check);
        child.once('exit', onExit);
        check();
      }),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.stdin?.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await once(child, 'exit');
      clearTimeout(timer);
    },
  };
}

/** One create sent to `url` for the shopper at `address` (the recipe trusts one proxy: the test); 0 when no answer came. */
function createOrGone(url: string, address: string, body: unknown): Promise<number> {
  return createAt(url, address, body).catch(() => 0); // no answer at all: the process is gone
}

/** The `index`th shopper of a test: an address and a mobile-money number no other create uses. */
function shopper(index: number): { address: string; body: unknown } {
  const address = `198.18.${index >> 8}.${index & 255}`;
  return { address, body: intent(customerPayingFrom(`024${1_000_000 + index}`)) };
}

/** One create of the traffic: when it was sent, what it got, how long it took. */
interface Sample {
  phase: string;
  status: number;
  ms: number;
}

/**
 * Creates sent without pause by `workers` shoppers in turn to each process,
 * each to a new address and number, until `stop()`; each is tagged with the
 * phase it was sent in.
 */
function startTraffic(urls: string[], workers: number) {
  const samples: Sample[] = [];
  const waiters = new Set<() => void>();
  let phase = 'before';
  let sent = 0;
  let stopped = false;
  const worker = async () => {
    while (!stopped && sent < MAX_CREATES) {
      const index = sent++;
      const { address, body } = shopper(index);
      const sentIn = phase;
      const started = performance.now();
      const status = await createOrGone(urls[index % urls.length] as string, address, body);
      samples.push({ phase: sentIn, status, ms: performance.now() - started });
      for (const waiter of waiters) waiter();
    }
  };
  const running = Promise.all(Array.from({ length: workers }, worker));
  return {
    samples,
    get sent() {
      return sent;
    },
    enter(next: string) {
      phase = next;
    },
    /** Resolves once `count` creates sent in `inPhase` are answered; rejects after `timeoutMs`. */
    answered(inPhase: string, count: number, timeoutMs: number): Promise<void> {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (samples.filter((sample) => sample.phase === inPhase).length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`fewer than ${count} creates answered in ${inPhase} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async stop() {
      stopped = true;
      await running;
    },
  };
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

describe('a Redis outage under the README’s fleet recipe', { skip, timeout: 120_000 }, () => {
  let redis: RedisServer;
  let sandbox: RunningSandbox;
  let fleet: FleetProcess[] = [];

  before(async () => {
    redis = await startRedis();
    sandbox = await startSandbox({ approveAfterMs: 60_000 });
    const env = {
      REDIS_URL: redis.url,
      PAY_SECRET_KEY: SECRET,
      PAY_API_BASE_URL: sandbox.url,
      PAY_LOOKUP_SECRET: LOOKUP_SECRET,
    };
    fleet = await Promise.all([startFleetProcess(env), startFleetProcess(env)]);
  });
  after(async () => {
    await Promise.all(fleet.map((member) => member.stop()));
    await sandbox?.close();
    await redis?.stop();
  });

  it('Redis crashed under creates: no process stops, every create is answered at once, one warning each, and the fleet limits as one again once Redis is back', async (t) => {
    const urls = fleet.map((member) => member.url);
    const traffic = startTraffic(urls, 2);
    try {
      await traffic.answered('before', 20, 30_000);
      traffic.enter('outage');
      await redis.kill();
      // The recipe attaches no `error` listener: the store's own keeps node-redis from crashing the process.
      await Promise.all(fleet.map((member) => member.printed(STORE_WARNING, 30_000)));
      await traffic.answered('outage', 40, 30_000);
      await redis.restart();
      const restarted = performance.now();
      traffic.enter('back');
      await redis.connections(fleet.length, 30_000);
      t.diagnostic(
        `both processes reconnected ${(performance.now() - restarted).toFixed(0)} ms after Redis restarted`,
      );
      await traffic.answered('back', 20, 30_000);
    } finally {
      await traffic.stop();
    }

    const { samples } = traffic;
    const outage = samples.filter((sample) => sample.phase === 'outage').map((sample) => sample.ms);
    t.diagnostic(
      `${samples.length} creates; while Redis was down: ${outage.length}, p50 ${percentile(outage, 0.5).toFixed(1)} ms, max ${Math.max(...outage).toFixed(1)} ms`,
    );
    const failed = samples.filter((sample) => sample.status !== 200);
    assert.deepEqual(failed, [], 'every create answered 200, before, during and after the outage');
    assert.ok(
      Math.max(...outage) < ANSWER_TIMEOUT_MS + 500,
      `no create waited more than the store's one timeout (max ${Math.max(...outage)} ms)`,
    );
    for (const member of fleet) {
      assert.equal(member.child.exitCode, null, 'the process is still running');
      const warnings = member.errors.filter((line) => line.includes(STORE_WARNING));
      assert.equal(warnings.length, 1, member.errors.join('\n'));
    }

    const client = await redis.connect();
    // Each process is back on Redis once a create it answered left its bucket there.
    let next = MAX_CREATES;
    for (const url of urls) {
      let onRedis = false;
      for (let attempt = 0; attempt < 50 && !onRedis; attempt++) {
        const { address } = shopper(++next);
        await createOrGone(url, address, intent({ customer_data: {} }));
        onRedis = (await client.exists(`pay-checkout:limit:create:${address}`)) === 1;
      }
      assert.ok(onRedis, `${url} limits in Redis again`);
    }
    const { address } = shopper(++next);
    const statuses = [];
    for (let index = 0; index < 30; index++) {
      statuses.push(await createOrGone(urls[index % 2] as string, address, intent({ customer_data: {} })));
    }
    assert.equal(statuses.filter((status) => status !== 429).length, 10, 'one bucket of 10 across the fleet');
  });
});

describe('a Redis that goes silent (a partition), with the merchant’s error listener', {
  skip,
  timeout: 60_000,
}, () => {
  const { events, relayWith } = relayStack();
  let silent: RedisServer;

  before(async () => {
    silent = await startRedis();
  });
  after(() => silent?.stop());

  it('one create waits the store’s one timeout, the next ones none, and Redis decides again once it answers', async () => {
    const timeoutMs = ANSWER_TIMEOUT_MS;
    const client = createClient({ url: silent.url });
    const clientErrors: unknown[] = [];
    client.on('error', (error) => clientErrors.push(error));
    await client.connect();
    const inspect = await silent.connect();
    const relay = relayWith({ rateLimit: { store: createRedisRateLimitStore(client) } });
    const create = async (index: number) => {
      const { address, body } = shopper(index);
      const started = performance.now();
      const response = await relay.create(createRequest(body), { clientAddress: address });
      await response.arrayBuffer();
      return { address, status: response.status, ms: performance.now() - started };
    };
    try {
      const first = await create(0);
      assert.equal(await inspect.exists(`pay-checkout:limit:create:${first.address}`), 1);
      events.length = 0;

      silent.pause();
      const met = await create(1);
      assert.equal(met.status, 200);
      assert.ok(met.ms >= timeoutMs * 0.9, `the create that met the silence waited it out (${met.ms} ms)`);
      assert.ok(met.ms < timeoutMs * 1.9, `one command timeout, not one per limit (${met.ms} ms)`);
      const next = [];
      for (let index = 2; index < 12; index++) next.push(await create(index));
      assert.deepEqual(
        next.map((answer) => answer.status),
        new Array(10).fill(200),
      );
      const slowest = Math.max(...next.map((answer) => answer.ms));
      assert.ok(slowest < timeoutMs / 2, `the creates after it waited for nothing (${slowest} ms)`);
      const warnings = events.filter((event) => event.type === 'warning');
      assert.deepEqual(
        warnings.map((event) => event.type === 'warning' && event.code),
        ['rate_limit_store_failed'],
      );

      silent.resume();
      await inspect.ping(); // Redis answers again
      let onRedis = false;
      for (let index = 12; index < 212 && !onRedis; index++) {
        const answer = await create(index);
        onRedis = (await inspect.exists(`pay-checkout:limit:create:${answer.address}`)) === 1;
      }
      assert.ok(onRedis, 'back on Redis without a restart');
    } finally {
      silent.resume();
      await client.quit().catch(() => client.destroy());
    }
  });
});
