/**
 * `pay-checkout serve` against the library relay in a Node server, side by
 * side in one run, both in front of one sandbox with the same limits (lifted,
 * so the work of a lookup is measured and not its refusal) and a memory
 * journal each:
 *
 * - Lookups on distinct orders, one of 30,000 per request, at 100
 *   connections: throughput and CPU per lookup of each server. Target:
 *   serve at least 0.9× the library relay's lookups.
 * - Creates the same way: throughput and CPU per create.
 * - Memory of serve: idle, and holding 10,000 pending orders in its journal
 *   (made through its own relay, the sandbox never approving), after a full
 *   garbage collection each.
 *
 * Each server runs in its own child process. The machine's load average is
 * recorded beside the figures. `BENCH_SECONDS` lengthens each run. Writes
 * bench/results/serve.json.
 */

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { SANDBOX_KEYS } from '../src/sandbox/index.js';
import { startServe } from '../src/serve/start-serve.js';
import { createCheckoutRelay, createLookupTokens, listen, openJournal } from '../src/server/node.js';
import { customerPayingFrom, priceAnyCart, UNLIMITED } from '../test/fixtures/checkout-data.js';
import { LOOKUP_SECRET } from '../test/fixtures/relay.js';
import {
  type ChildServer,
  isMainModule,
  type LoadResult,
  runLoad,
  startServerInChild,
  writeResults,
} from './lib.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const WARM_UP_SECONDS = 2;
const CONNECTIONS = 100;
const DISTINCT_ORDERS = 30_000;
const PENDING_ORDERS = 10_000;
const TARGET_LOOKUP_RATIO = 0.9;
/** Lifted limits: every lookup and create is served. */
const NO_LIMITS = { create: UNLIMITED, lookup: UNLIMITED, promptsPerNumber: false } as const;
const CATALOGUE = { 'kente-tote': { name: 'Kente tote', unitPrice: { currency: 'ghs', value: 5_000 } } };

/** Child-process starter: the library relay on `node:http`, with a memory journal, as a merchant mounts it. */
export async function serveLibraryRelay({ sandboxUrl }: { sandboxUrl: string }) {
  const relay = createCheckoutRelay({
    secretKey: SANDBOX_KEYS.secret,
    baseUrl: sandboxUrl,
    priceCart: priceAnyCart,
    lookupSecret: LOOKUP_SECRET,
    rateLimit: NO_LIMITS,
    journal: await openJournal('memory:'),
    onPaid: () => undefined,
  });
  const server = await listen(relay.node);
  return { url: `${server.url}/checkout`, close: server.close };
}

/** Child-process starter: serve, with a memory journal, in front of the sandbox at `sandboxUrl`. */
export async function serveServe({ sandboxUrl }: { sandboxUrl: string }) {
  const serve = await startServe({
    config: {
      listen: { port: 0 },
      service: { baseUrl: sandboxUrl },
      journal: 'memory:',
      catalogue: CATALOGUE,
    },
    env: { PAY_SECRET_KEY: SANDBOX_KEYS.secret, PAY_LOOKUP_SECRET: LOOKUP_SECRET },
    writeLog: () => undefined,
    rateLimit: NO_LIMITS,
  });
  return { url: `${serve.url}/checkout`, close: serve.close };
}

/** A full garbage collection, then this process's resident and heap memory, in MiB. */
function memoryNow(): { rssMiB: number; heapUsedMiB: number } {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  const { rss, heapUsed } = process.memoryUsage();
  const mib = (bytes: number) => Math.round((bytes / 1024 ** 2) * 10) / 10;
  return { rssMiB: mib(rss), heapUsedMiB: mib(heapUsed) };
}

/** Child-process starter: serve idle, measured, then holding {@link PENDING_ORDERS} pending orders, measured. */
export async function serveMemory({ sandboxUrl }: { sandboxUrl: string }) {
  const serve = await startServe({
    config: {
      listen: { port: 0 },
      service: { baseUrl: sandboxUrl },
      journal: 'memory:',
      catalogue: CATALOGUE,
    },
    env: { PAY_SECRET_KEY: SANDBOX_KEYS.secret, PAY_LOOKUP_SECRET: LOOKUP_SECRET },
    writeLog: () => undefined,
    rateLimit: NO_LIMITS,
  });
  const idle = memoryNow();
  const cart = { items: [{ sku: 'kente-tote', quantity: 1 }] };
  for (let index = 0; index < PENDING_ORDERS; index += 100) {
    await Promise.all(
      Array.from({ length: 100 }, async (_, offset) => {
        const number = `024${String(1_000_000 + index + offset)}`;
        const answer = await serve.relay.handle(
          new Request(`${serve.url}/checkout/orders`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
            body: JSON.stringify({ ...customerPayingFrom(number), cart }),
          }),
          { clientAddress: '127.0.0.1' },
        );
        if (answer.status !== 200) throw new Error(`create answered ${answer.status}`);
      }),
    );
  }
  return { url: serve.url, info: { idle, pending: memoryNow() }, close: serve.close };
}

type Measured = LoadResult & { cpuMicrosecondsPerRequest: number };

/** A load on `child`'s `path`, warmed up first, with the CPU the child spent per request. */
async function measure(child: ChildServer, path: string, load: { body?: string; bodies?: string[] }) {
  const options = {
    url: `${child.url}/${path}`,
    connections: CONNECTIONS,
    headers: { 'content-type': 'application/json', 'idempotency-key': '[<id>]' },
    idReplacement: true,
    ...load,
  };
  await runLoad({ ...options, durationSeconds: WARM_UP_SECONDS });
  const before = await child.cpuMicroseconds();
  const result = await runLoad({ ...options, durationSeconds: SECONDS });
  const spent = (await child.cpuMicroseconds()) - before;
  const measured: Measured = {
    ...result,
    cpuMicrosecondsPerRequest: Math.round(spent / Math.max(1, result.totalRequests)),
  };
  return measured;
}

async function main(): Promise<void> {
  const relayBench = new URL('./relay.bench.ts', import.meta.url);
  const here = new URL(import.meta.url);
  const sandbox = await startServerInChild<{ orderIds: string[] }>(relayBench, 'serveSandbox', {
    orders: DISTINCT_ORDERS,
  });
  const tokens = createLookupTokens(LOOKUP_SECRET);
  const lookups = await Promise.all(
    sandbox.info.orderIds.map(async (id) =>
      JSON.stringify({ order_id: id, lookup_token: await tokens.sign(id) }),
    ),
  );
  const create = JSON.stringify({
    ...customerPayingFrom('0241234567'),
    cart: { items: [{ sku: 'kente-tote', quantity: 1 }] },
  });
  const servers = {
    libraryRelay: await startServerInChild(here, 'serveLibraryRelay', { sandboxUrl: sandbox.url }),
    serve: await startServerInChild(here, 'serveServe', { sandboxUrl: sandbox.url }),
  };
  const figures: Record<string, Record<string, Measured>> = { lookups: {}, creates: {} };
  try {
    // Lookups first, in both orders, the better run of each kept: the load of a shared machine
    // moves under a run, and a server measured second must not pay for it alone. Creates after
    // them, since each leaves a pending order its server's watcher then polls.
    const names = Object.keys(servers) as (keyof typeof servers)[];
    for (const order of [names, [...names].reverse()]) {
      for (const name of order) {
        const run = await measure(servers[name], 'lookup', { body: lookups[0], bodies: lookups });
        const best = figures.lookups?.[name];
        if (!best || run.requestsPerSecond > best.requestsPerSecond)
          (figures.lookups as Record<string, Measured>)[name] = run;
      }
    }
    for (const name of names) {
      (figures.creates as Record<string, Measured>)[name] = await measure(servers[name], 'orders', {
        body: create,
      });
    }
  } finally {
    await Promise.all(Object.values(servers).map((child) => child.close()));
  }
  const memory = await startServerInChild<{ idle: unknown; pending: unknown }>(here, 'serveMemory', {
    sandboxUrl: sandbox.url,
  });
  await memory.close();
  await sandbox.close();
  const lookupRatio =
    Math.round(
      ((figures.lookups?.serve?.requestsPerSecond ?? 0) /
        Math.max(1, figures.lookups?.libraryRelay?.requestsPerSecond ?? 0)) *
        100,
    ) / 100;
  const file = await writeResults('serve', {
    target: { lookupRatio: TARGET_LOOKUP_RATIO },
    lookupRatio,
    ...figures,
    memory: { idle: memory.info.idle, [`pending${PENDING_ORDERS}`]: memory.info.pending },
  });
  console.log(JSON.stringify({ lookupRatio, ...figures, memory: memory.info }, null, 2));
  console.log(`wrote ${file}`);
}

if (isMainModule(import.meta.url)) await main();
