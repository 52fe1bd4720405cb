/**
 * Throughput and latency under load (issue #7): the sandbox and the relay
 * (with Node's global fetch, and with undici's transport, its default on
 * Node), lookups and
 * creates, at 10, 100 and 500 connections with autocannon, each beside a bare
 * `node:http` JSON server measured in the same run at the same connections
 * just before (the baseline: the least any JSON endpoint does). Lookups run
 * first at every level, then creates, so no create evicts the order looked
 * up. Every server runs in its own child process, autocannon in this one.
 * Writes bench/results/load.json.
 */

import { createSandbox, SANDBOX_KEYS } from '../src/sandbox/index.js';
import { createCheckoutRelay, createLookupTokens, listen, toNodeListener } from '../src/server/node.js';
import { SERVICE_MAX_BODY_BYTES } from '../src/shared/service-contract.js';
import { checkoutIntent, creationInput, priceAnyCart, UNLIMITED } from '../test/fixtures/checkout-data.js';
import { createTestRelay, LOOKUP_SECRET } from '../test/fixtures/relay.js';
import {
  type ChildServer,
  isMainModule,
  type LoadResult,
  runLoad,
  type StartedServer,
  startServerInChild,
  writeResults,
} from './lib.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const WARM_UP_SECONDS = 4;
const CONNECTION_LEVELS = [10, 100, 500] as const;
/** Child-process starter: a sandbox holding one order (its payer slow to answer), whose id it reports. */
export async function serveLoadSandbox(): Promise<StartedServer<{ orderId: string }>> {
  const sandbox = createSandbox({ approveAfterMs: 3_600_000 });
  const [orderId] = sandbox.seedOrders(1, creationInput);
  const server = await listen(toNodeListener(sandbox.handle, { maxBodyBytes: SERVICE_MAX_BODY_BYTES }));
  return { url: server.url, info: { orderId: orderId as string }, close: server.close };
}

/** Child-process starter: the relay on `node:http` in front of the sandbox, with Node's global fetch or the Node transport. */
export async function serveLoadRelay(options: {
  sandboxUrl: string;
  orderId: string;
  nodeFetch: boolean;
}): Promise<StartedServer<{ lookupToken: string }>> {
  const relay = createTestRelay(
    {
      baseUrl: options.sandboxUrl,
      priceCart: priceAnyCart,
      // Every create here is for one number: the prompt limit's cost is measured in rate-limit.bench.ts.
      rateLimit: { create: UNLIMITED, lookup: UNLIMITED, promptsPerNumber: false },
      // No fetch option: the Node entry's default, undici's transport.
      ...(options.nodeFetch ? {} : { fetch: globalThis.fetch }),
    },
    createCheckoutRelay,
  );
  const server = await listen(relay.node);
  return {
    url: server.url,
    info: { lookupToken: await createLookupTokens(LOOKUP_SECRET).sign(options.orderId) },
    close: server.close,
  };
}

/** One path under load. */
interface Target {
  server: ChildServer;
  path: string;
  body: unknown;
  headers: Record<string, string>;
}

/** A load run's figures, with the CPU time the server under test spent per request. */
type Measured = LoadResult & { serverCpuMicrosecondsPerRequest: number };

async function measure(
  name: string,
  target: Target,
  connections: number,
  warmUp: boolean,
): Promise<Measured> {
  const options = {
    url: `${target.server.url}${target.path}`,
    connections,
    body: JSON.stringify(target.body),
    headers: { 'content-type': 'application/json', ...target.headers },
    // Creates carry `[<id>]` in their idempotency key: a fresh key, so a new order, each request.
    idReplacement: true,
  };
  if (warmUp) await runLoad({ ...options, durationSeconds: WARM_UP_SECONDS });
  const cpuBefore = await target.server.cpuMicroseconds();
  const result = await runLoad({ ...options, durationSeconds: SECONDS });
  const cpu = (await target.server.cpuMicroseconds()) - cpuBefore;
  const measured = {
    ...result,
    serverCpuMicrosecondsPerRequest: Math.round(cpu / Math.max(1, result.totalRequests)),
  };
  process.stdout.write(
    `${connections} connections, ${name}: ${measured.requestsPerSecond}/s, p50 ${measured.latencyP50Ms} ms, p99 ${measured.latencyP99Ms} ms, errors ${measured.errors}, non-2xx ${measured.non2xx}, ${measured.serverCpuMicrosecondsPerRequest} µs CPU/request\n`,
  );
  return measured;
}

const ratio = (value: number, baseline: number) => Math.round((value / Math.max(1, baseline)) * 1000) / 1000;

async function main(): Promise<void> {
  const here = new URL(import.meta.url);
  const bare = await startServerInChild(new URL('./lib.ts', import.meta.url), 'startBareJsonServer');
  const sandbox = await startServerInChild<{ orderId: string }>(here, 'serveLoadSandbox');
  const { orderId } = sandbox.info;
  const relay = await startServerInChild<{ lookupToken: string }>(here, 'serveLoadRelay', {
    sandboxUrl: sandbox.url,
    orderId,
    nodeFetch: false,
  });
  const relayUndici = await startServerInChild<{ lookupToken: string }>(here, 'serveLoadRelay', {
    sandboxUrl: sandbox.url,
    orderId,
    nodeFetch: true,
  });
  const sandboxHeaders = { authorization: `Bearer ${SANDBOX_KEYS.secret}` };
  const relayLookup = (server: ChildServer<{ lookupToken: string }>): Target => ({
    server,
    path: '/api/checkout/lookup',
    body: { order_id: orderId, lookup_token: server.info.lookupToken },
    headers: {},
  });
  const relayCreate = (server: ChildServer, name: string): Target => ({
    server,
    path: '/api/checkout/orders',
    body: checkoutIntent(),
    headers: { 'idempotency-key': `load-${name}-000000-[<id>]` },
  });
  const baseline: Target = { server: bare, path: '/orders/lookup', body: { order_id: orderId }, headers: {} };
  const phases: Record<'lookups' | 'creates', Record<string, Target>> = {
    lookups: {
      bareNodeHttp: baseline,
      sandbox: {
        server: sandbox,
        path: '/orders/lookup',
        body: { order_id: orderId },
        headers: sandboxHeaders,
      },
      relay: relayLookup(relay),
      relayUndici: relayLookup(relayUndici),
    },
    creates: {
      bareNodeHttp: baseline,
      sandbox: {
        server: sandbox,
        path: '/orders/new',
        body: creationInput,
        headers: { ...sandboxHeaders, 'idempotency-key': 'load-direct-[<id>]' },
      },
      relay: relayCreate(relay, 'relay'),
      relayUndici: relayCreate(relayUndici, 'node'),
    },
  };
  const results: Record<string, Record<string, Record<string, Measured | Record<string, number>>>> = {};
  try {
    for (const [phase, targets] of Object.entries(phases)) {
      results[phase] = {};
      for (const connections of CONNECTION_LEVELS) {
        const runs: Record<string, Measured> = {};
        for (const [name, target] of Object.entries(targets)) {
          runs[name] = await measure(
            `${phase}: ${name}`,
            target,
            connections,
            connections === CONNECTION_LEVELS[0],
          );
        }
        const bareRun = runs.bareNodeHttp as Measured;
        (results[phase] as Record<string, unknown>)[String(connections)] = {
          ...runs,
          versusBare: Object.fromEntries(
            Object.entries(runs)
              .filter(([name]) => name !== 'bareNodeHttp')
              .map(([name, run]) => [name, ratio(run.requestsPerSecond, bareRun.requestsPerSecond)]),
          ),
        };
      }
    }
  } finally {
    for (const server of [relayUndici, relay, sandbox, bare]) await server.close();
  }
  const file = await writeResults('load', {
    settings: {
      secondsPerRun: SECONDS,
      warmUpSecondsPerPath: WARM_UP_SECONDS,
      connectionLevels: CONNECTION_LEVELS,
      transport:
        'loopback HTTP/1.1; bare server, sandbox and each relay in a child process; autocannon in this one',
      baseline:
        'bench/lib.ts startBareJsonServer: node:http, reads and parses the JSON body, answers a small JSON object; measured just before the paths at each level',
      relay:
        'createCheckoutRelay().node in front of the sandbox child, rate limiter on (a bucket too big to refuse); relay = fetch: globalThis.fetch, relayUndici = no fetch option: the undici transport (the default on Node)',
      order:
        'lookups at 10, 100, 500 connections, then creates at 10, 100, 500 (creates never evict the order looked up)',
      versusBare: 'requests/s of the path ÷ requests/s of the bare server at the same connections, same run',
    },
    ...results,
  });
  process.stdout.write(`wrote ${file}\n`);
}

if (isMainModule(import.meta.url)) await main();
