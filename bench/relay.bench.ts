/**
 * The merchant relay's speed over loopback HTTP, against the same calls made
 * straight to the sandbox in the same run (issue #3): lookups and creates per
 * second and p50/p99 latency at 100 connections. First each path as fast as
 * it answers; then every path at one fixed rate (half the slower relay's), so
 * the latency the relay adds is not the queueing any slower path shows at
 * saturation. Two relays: with the runtime's global fetch (the default) and
 * with `createNodeFetch()` (the Node transport).
 * Targets: lookups through the relay at least 60 % of the direct rate, and at
 * most 5 ms added at p99. The sandbox and each relay run in their own child
 * process; the relays keep their rate limiter on (with a bucket too big to
 * refuse) so its cost is counted. Writes bench/results/relay.json.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createSandbox, SANDBOX_KEYS } from '../src/sandbox/index.js';
import {
  createCheckoutRelay,
  createLookupTokens,
  createNodeFetch,
  listen,
  type NodeListener,
  type PricedLineItem,
  toNodeListener,
} from '../src/server/index.js';
import { SERVICE_MAX_BODY_BYTES } from '../src/shared/service-contract.js';
import {
  isMainModule,
  type LoadResult,
  runLoad,
  type StartedServer,
  startServerInChild,
  writeResults,
} from './lib.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const WARM_UP_SECONDS = 2;
const CONNECTIONS = 100;
const LOOKUP_SECRET = 'bench-lookup-secret-0123456789abcdef';
const UNLIMITED = { capacity: 1e12, refillPerMinute: 1e12 };
const TARGET_LOOKUP_RATIO = 0.6;
const TARGET_ADDED_P99_MS = 5;

const customer = {
  customer_data: { name: 'Ama Mensah', phone_number: '+233241234567' },
  payment_method_data: { type: 'mobile_money', mobile_money: { issuer: 'mtn', number: '0241234567' } },
};

const lineItems: PricedLineItem[] = [
  {
    type: 'product',
    product: { name: 'Kente scarf', price: { currency: 'ghs', value: 12_000 }, quantity: 1 },
  },
];

/** What the browser sends the relay, and what the relay sends the service for it. */
const intent = { ...customer, cart: { items: [{ sku: 'scarf', quantity: 1 }] } };
const creationInput = { execute_payment: true, ...customer, line_items: lineItems };

/** How a relay reaches the service. */
type Transport = 'globalFetch' | 'nodeFetch';
const TRANSPORTS: readonly Transport[] = ['globalFetch', 'nodeFetch'];

/** Where a child reports its CPU time and requests served, so CPU per request can be compared. */
const CPU_PATH = '/__bench/cpu';

/** Wraps a listener to count requests and answer {@link CPU_PATH}. */
function withCpuReport(listener: NodeListener): NodeListener {
  let requests = 0;
  return (incoming: IncomingMessage, outgoing: ServerResponse) => {
    if (incoming.url === CPU_PATH) {
      const { user, system } = process.cpuUsage();
      outgoing
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ cpuMicroseconds: user + system, requests }));
      return;
    }
    requests++;
    listener(incoming, outgoing);
  };
}

/** Child-process starter: a sandbox holding one order, whose id it reports. */
export async function serveSandbox(): Promise<StartedServer<{ orderId: string }>> {
  const sandbox = createSandbox({ approveAfterMs: 3_600_000 });
  const [orderId] = sandbox.seedOrders(1, creationInput);
  const server = await listen(
    withCpuReport(toNodeListener(sandbox.handle, { maxBodyBytes: SERVICE_MAX_BODY_BYTES })),
  );
  return { url: server.url, info: { orderId: orderId as string }, close: server.close };
}

/** Child-process starter: a relay on `node:http` in front of the sandbox at `sandboxUrl`. */
export async function serveRelay({
  sandboxUrl,
  orderId,
  transport,
}: {
  sandboxUrl: string;
  orderId: string;
  transport: Transport;
}): Promise<StartedServer<{ lookupToken: string }>> {
  const relay = createCheckoutRelay({
    secretKey: SANDBOX_KEYS.secret,
    baseUrl: sandboxUrl,
    lookupSecret: LOOKUP_SECRET,
    priceCart: () => lineItems,
    rateLimit: { create: UNLIMITED, lookup: UNLIMITED },
    onEvent: () => undefined,
    ...(transport === 'nodeFetch' ? { fetch: createNodeFetch() } : {}),
  });
  const server = await listen(withCpuReport(relay.node));
  return {
    url: server.url,
    info: { lookupToken: await createLookupTokens(LOOKUP_SECRET).sign(orderId) },
    close: server.close,
  };
}

interface Call {
  url: string;
  body: unknown;
  headers: Record<string, string>;
  /** The child processes on the path, by name, whose CPU per request is measured. */
  processes: Record<string, string>;
}

/** A load run's figures, with the CPU time each process on the path spent per request it served. */
type Measured = LoadResult & { cpuMicrosecondsPerRequest: Record<string, number> };

async function cpuOf(url: string): Promise<{ cpuMicroseconds: number; requests: number }> {
  return (await (await fetch(`${url}${CPU_PATH}`)).json()) as { cpuMicroseconds: number; requests: number };
}

/** Load at 100 connections: as fast as answered (`overallRate` unset), or at a fixed total rate. */
async function measure(name: string, call: Call, overallRate?: number): Promise<Measured> {
  const options = {
    url: call.url,
    connections: CONNECTIONS,
    body: JSON.stringify(call.body),
    headers: { 'content-type': 'application/json', ...call.headers },
    // Creates carry a fresh idempotency key each (`[<id>]`), so every one makes an order.
    idReplacement: true,
    ...(overallRate === undefined ? {} : { overallRate }),
  };
  await runLoad({ ...options, durationSeconds: WARM_UP_SECONDS });
  const before = await Promise.all(Object.values(call.processes).map(cpuOf));
  const result = await runLoad({ ...options, durationSeconds: SECONDS });
  const after = await Promise.all(Object.values(call.processes).map(cpuOf));
  const cpuMicrosecondsPerRequest = Object.fromEntries(
    Object.keys(call.processes).map((processName, index) => {
      const start = before[index] as { cpuMicroseconds: number; requests: number };
      const end = after[index] as { cpuMicroseconds: number; requests: number };
      return [
        processName,
        Math.round(
          (end.cpuMicroseconds - start.cpuMicroseconds) / Math.max(1, end.requests - start.requests),
        ),
      ];
    }),
  );
  process.stdout.write(
    `${name}${overallRate ? ` at ${overallRate}/s` : ''}: ${result.requestsPerSecond}/s, p50 ${result.latencyP50Ms} ms, p99 ${result.latencyP99Ms} ms, errors ${result.errors}, non-2xx ${result.non2xx}, CPU µs/request ${JSON.stringify(cpuMicrosecondsPerRequest)}\n`,
  );
  return { ...result, cpuMicrosecondsPerRequest };
}

interface Comparison {
  /** Every path at 100 connections, as fast as it answers. */
  saturated: {
    direct: Measured;
    relay: Record<Transport, Measured>;
    relayVersusDirect: Record<Transport, number>;
  };
  /** Every path at 100 connections and the same fixed total rate: the latency a relay adds. */
  atFixedRate: {
    requestsPerSecond: number;
    direct: Measured;
    relay: Record<Transport, Measured>;
    addedLatencyP50Ms: Record<Transport, number>;
    addedLatencyP99Ms: Record<Transport, number>;
  };
}

const round2 = (value: number) => Math.round(value * 100) / 100;

async function compare(name: string, direct: Call, relays: Record<Transport, Call>): Promise<Comparison> {
  const directSaturated = await measure(`direct ${name}`, direct);
  const relaySaturated = {} as Record<Transport, Measured>;
  for (const transport of TRANSPORTS) {
    relaySaturated[transport] = await measure(`relay (${transport}) ${name}`, relays[transport]);
  }
  const slowest = Math.min(...TRANSPORTS.map((transport) => relaySaturated[transport].requestsPerSecond));
  const rate = Math.max(50, Math.round(slowest / 2 / 50) * 50);
  const directFixed = await measure(`direct ${name}`, direct, rate);
  const relayFixed = {} as Record<Transport, Measured>;
  for (const transport of TRANSPORTS) {
    relayFixed[transport] = await measure(`relay (${transport}) ${name}`, relays[transport], rate);
  }
  const perTransport = (figure: (transport: Transport) => number) =>
    Object.fromEntries(TRANSPORTS.map((transport) => [transport, figure(transport)])) as Record<
      Transport,
      number
    >;
  return {
    saturated: {
      direct: directSaturated,
      relay: relaySaturated,
      relayVersusDirect: perTransport(
        (transport) =>
          Math.round(
            (relaySaturated[transport].requestsPerSecond / directSaturated.requestsPerSecond) * 1000,
          ) / 1000,
      ),
    },
    atFixedRate: {
      requestsPerSecond: rate,
      direct: directFixed,
      relay: relayFixed,
      addedLatencyP50Ms: perTransport((transport) =>
        round2(relayFixed[transport].latencyP50Ms - directFixed.latencyP50Ms),
      ),
      addedLatencyP99Ms: perTransport((transport) =>
        round2(relayFixed[transport].latencyP99Ms - directFixed.latencyP99Ms),
      ),
    },
  };
}

async function main(): Promise<void> {
  const sandbox = await startServerInChild<{ orderId: string }>(new URL(import.meta.url), 'serveSandbox');
  const orderId = sandbox.info.orderId;
  const relays = {} as Record<
    Transport,
    Awaited<ReturnType<typeof startServerInChild<{ lookupToken: string }>>>
  >;
  let lookups: Comparison;
  let creates: Comparison;
  try {
    for (const transport of TRANSPORTS) {
      relays[transport] = await startServerInChild<{ lookupToken: string }>(
        new URL(import.meta.url),
        'serveRelay',
        {
          sandboxUrl: sandbox.url,
          orderId,
          transport,
        },
      );
    }
    const serviceHeaders = { authorization: `Bearer ${SANDBOX_KEYS.secret}` };
    const relayCalls = (call: (transport: Transport) => Call) =>
      Object.fromEntries(TRANSPORTS.map((transport) => [transport, call(transport)])) as Record<
        Transport,
        Call
      >;
    lookups = await compare(
      'lookups',
      {
        url: `${sandbox.url}/orders/lookup`,
        body: { order_id: orderId },
        headers: serviceHeaders,
        processes: { sandbox: sandbox.url },
      },
      relayCalls((transport) => ({
        url: `${relays[transport].url}/api/checkout/lookup`,
        body: { order_id: orderId, lookup_token: relays[transport].info.lookupToken },
        headers: {},
        processes: { relay: relays[transport].url, sandbox: sandbox.url },
      })),
    );
    creates = await compare(
      'creates',
      {
        url: `${sandbox.url}/orders/new`,
        body: creationInput,
        headers: { ...serviceHeaders, 'idempotency-key': 'bench-direct-[<id>]' },
        processes: { sandbox: sandbox.url },
      },
      relayCalls((transport) => ({
        url: `${relays[transport].url}/api/checkout/orders`,
        body: intent,
        headers: { 'idempotency-key': `bench-${transport}-[<id>]` },
        processes: { relay: relays[transport].url, sandbox: sandbox.url },
      })),
    );
  } finally {
    for (const relay of Object.values(relays)) await relay.close();
    await sandbox.close();
  }

  const targets = Object.fromEntries(
    TRANSPORTS.map((transport) => {
      const ratio = lookups.saturated.relayVersusDirect[transport];
      const addedP99 = lookups.atFixedRate.addedLatencyP99Ms[transport];
      process.stdout.write(
        `lookups through the relay (${transport}): ${(ratio * 100).toFixed(1)} % of direct (target ≥ ${TARGET_LOOKUP_RATIO * 100} %); p99 added ${addedP99} ms at ${lookups.atFixedRate.requestsPerSecond}/s (target ≤ ${TARGET_ADDED_P99_MS} ms)\n`,
      );
      return [
        transport,
        {
          lookupRatio: { target: TARGET_LOOKUP_RATIO, measured: ratio, met: ratio >= TARGET_LOOKUP_RATIO },
          lookupAddedP99Ms: {
            target: TARGET_ADDED_P99_MS,
            measured: addedP99,
            atRequestsPerSecond: lookups.atFixedRate.requestsPerSecond,
            met: addedP99 <= TARGET_ADDED_P99_MS,
          },
        },
      ];
    }),
  );
  const file = await writeResults('relay', {
    settings: {
      secondsPerRun: SECONDS,
      warmUpSecondsPerRun: WARM_UP_SECONDS,
      connections: CONNECTIONS,
      transport: 'loopback HTTP/1.1; the sandbox and each relay in a child process; autocannon in this one',
      relay:
        'createCheckoutRelay().node on node:http, rate limiter on (bucket too big to refuse); globalFetch = the default, nodeFetch = fetch: createNodeFetch()',
      fixedRate: 'half the slower relay’s saturated rate, rounded to 50/s, for every path',
    },
    lookups,
    creates,
    targets,
  });
  process.stdout.write(`wrote ${file}\n`);
}

if (isMainModule(import.meta.url)) await main();
