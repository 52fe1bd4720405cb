/**
 * The merchant relay's speed over loopback HTTP, against a bare forwarding
 * proxy and the same calls made straight to the sandbox, all in the same run
 * (issue #3), and in the case the product lives in (issue #14). Each server
 * runs in its own child process; the relays keep their rate limiter on (with
 * a bucket too big to refuse) so its cost is counted.
 *
 * - Lookups on distinct orders: each request looks up another of 30,000
 *   orders, so nothing is shared (the relay answers one order's lookups
 *   within 2 s from one read). Throughput at 100 connections, as fast as each
 *   path answers, with CPU per lookup of every process on the path; the
 *   headline is the relay against the bare proxy: both are one extra hop, so
 *   the ratio is what the relay's own work costs.
 * - Added latency: requests evenly paced at a quarter of the relay's
 *   throughput over 100 keep-alive connections, each timed from its
 *   scheduled start (autocannon's own rate limit sends each second's
 *   requests in one burst, which would time the burst's queue).
 * - Creates the same way, through the relay and the bare proxy.
 * - Paths: the sandbox direct; the relay with its default transport on Node
 *   (undici's dispatcher) and, for lookups, with the runtime's global fetch
 *   given as `fetch`; a bare `node:http` proxy that forwards without any
 *   work, the ceiling for any extra hop on this machine.
 * - Polling (relay-polling.ts): pending orders polled by 1 and by 5 tabs
 *   each, the watcher on a journal: service lookups per order per 2 s and
 *   relay CPU per browser lookup.
 *
 * Targets: lookups through the relay at least 85 % of the bare proxy's rate,
 * at most 5 ms added at p99, and at most 1 service lookup per order per 2 s
 * however many tabs poll. The machine's load average is recorded beside the
 * figures: other work on a shared machine moves them. About two minutes;
 * `BENCH_SECONDS` lengthens each throughput run. Writes bench/results/relay.json.
 */
import { Agent, request as httpRequest } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { createSandbox, SANDBOX_KEYS } from '../src/sandbox/index.js';
import { createCheckoutRelay, createLookupTokens, listen, toNodeListener } from '../src/server/node.js';
import { SERVICE_MAX_BODY_BYTES } from '../src/shared/service-contract.js';
import { checkoutIntent, creationInput, priceAnyCart, UNLIMITED } from '../test/fixtures/checkout-data.js';
import { createTestRelay, LOOKUP_SECRET } from '../test/fixtures/relay.js';
import { cpuOf, withCpuReport } from './cpu-report.js';
import {
  type ChildServer,
  isMainModule,
  type LoadResult,
  runLoad,
  type StartedServer,
  startServerInChild,
  writeResults,
} from './lib.js';
import { measurePolling, type PollingFigures, TAB_POLL_MS } from './relay-polling.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const WARM_UP_SECONDS = 1;
/** Seconds of full-speed load each path gets before it is measured, so JIT warm-up is not measured. */
const PRIME_SECONDS = 3;
const CONNECTIONS = 100;
/**
 * Orders the lookups go round, one per request: at the relay's rate each is
 * looked up again only seconds later, past the relay's 2 s of sharing and its
 * bounded memories, so no lookup shares anything with another. The relay's
 * work per lookup is measured whole, as a shop with many shoppers sees it.
 */
const DISTINCT_ORDERS = 30_000;
/** Lookups through the relay as a share of the bare proxy's. */
const TARGET_LOOKUP_RATIO = 0.85;
const TARGET_ADDED_P99_MS = 5;

/** The paths compared with the direct one. */
type Path = 'relayGlobalFetch' | 'relayUndici' | 'bareProxy';
const PATHS: readonly Path[] = ['relayGlobalFetch', 'relayUndici', 'bareProxy'];
const RELAYS = ['relayGlobalFetch', 'relayUndici'] as const;

/** Child-process starter: a sandbox holding `orders` pending orders, whose ids it reports. */
export async function serveSandbox({
  orders,
}: {
  orders: number;
}): Promise<StartedServer<{ orderIds: string[] }>> {
  const sandbox = createSandbox({ approveAfterMs: 3_600_000 });
  const orderIds = sandbox.seedOrders(orders, creationInput);
  const server = await listen(
    withCpuReport(toNodeListener(sandbox.handle, { maxBodyBytes: SERVICE_MAX_BODY_BYTES })),
  );
  return { url: server.url, info: { orderIds }, close: server.close };
}

/** Child-process starter: a relay on `node:http` in front of the sandbox at `sandboxUrl`. */
export async function serveRelay({
  sandboxUrl,
  transport,
}: {
  sandboxUrl: string;
  transport: (typeof RELAYS)[number];
}): Promise<StartedServer> {
  const relay = createTestRelay(
    {
      baseUrl: sandboxUrl,
      priceCart: priceAnyCart,
      // Every create here is for one number: the prompt limit's cost is measured in rate-limit.bench.ts.
      rateLimit: { create: UNLIMITED, lookup: UNLIMITED, promptsPerNumber: false },
      // No fetch option is the default on Node, undici's transport; the global fetch is given explicitly.
      ...(transport === 'relayGlobalFetch' ? { fetch: globalThis.fetch } : {}),
    },
    createCheckoutRelay,
  );
  const server = await listen(withCpuReport(relay.node));
  return { url: server.url, close: server.close };
}

/**
 * Child-process starter: the least an extra hop can cost. A `node:http`
 * server that reads the body and forwards it, path and headers unchanged,
 * over keep-alive `http.request`, then writes the answer back. No parsing,
 * no checks.
 */
export async function serveBareProxy({ sandboxUrl }: { sandboxUrl: string }): Promise<StartedServer> {
  const target = new URL(sandboxUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  return listen(
    withCpuReport((incoming, outgoing) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const body = Buffer.concat(chunks);
        const headers = { ...incoming.headers, 'content-length': String(body.byteLength) };
        delete headers.host;
        const upstream = httpRequest(
          {
            hostname: target.hostname,
            port: target.port,
            path: incoming.url,
            method: incoming.method,
            headers,
            agent,
          },
          (answer) => {
            const parts: Buffer[] = [];
            answer.on('data', (chunk: Buffer) => parts.push(chunk));
            answer.on('end', () => {
              outgoing
                .writeHead(answer.statusCode ?? 502, { 'content-type': 'application/json' })
                .end(Buffer.concat(parts));
            });
          },
        );
        upstream.on('error', () => outgoing.writeHead(502).end());
        upstream.end(body);
      });
    }),
  );
}

interface Call {
  url: string;
  body: unknown;
  /** Bodies sent in turn instead of `body`: one order each, so no two lookups in a row share anything. */
  bodies?: readonly string[];
  headers: Record<string, string>;
  /** The child processes on the path, by name, whose CPU per request is measured. */
  processes: Record<string, string>;
}

/** A throughput run's figures, with the CPU time each process on the path spent per request it served. */
type Measured = LoadResult & { cpuMicrosecondsPerRequest: Record<string, number> };

/** A paced run's latency figures. */
interface PacedLatency {
  requestsPerSecond: number;
  requests: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyMeanMs: number;
  errors: number;
  non2xx: number;
}

function loadOptions(call: Call) {
  return {
    url: call.url,
    connections: CONNECTIONS,
    body: JSON.stringify(call.body),
    headers: { 'content-type': 'application/json', ...call.headers },
    // Creates carry a fresh idempotency key each (`[<id>]`), so every one makes an order.
    idReplacement: true,
    ...(call.bodies ? { bodies: call.bodies } : {}),
  };
}

/** autocannon at 100 connections, as fast as the path answers; with CPU per request of each process. */
async function measureThroughput(name: string, call: Call): Promise<Measured> {
  await runLoad({ ...loadOptions(call), durationSeconds: WARM_UP_SECONDS });
  const before = await Promise.all(Object.values(call.processes).map(cpuOf));
  const result = await runLoad({ ...loadOptions(call), durationSeconds: SECONDS });
  const after = await Promise.all(Object.values(call.processes).map(cpuOf));
  const cpuMicrosecondsPerRequest = Object.fromEntries(
    Object.keys(call.processes).map((processName, index) => {
      const start = before[index] as { cpuMicroseconds: number; requests: number };
      const end = after[index] as { cpuMicroseconds: number; requests: number };
      const served = Math.max(1, end.requests - start.requests);
      return [processName, Math.round((end.cpuMicroseconds - start.cpuMicroseconds) / served)];
    }),
  );
  process.stdout.write(
    `${name}: ${result.requestsPerSecond}/s, p50 ${result.latencyP50Ms} ms, p99 ${result.latencyP99Ms} ms, errors ${result.errors}, non-2xx ${result.non2xx}, CPU µs/request ${JSON.stringify(cpuMicrosecondsPerRequest)}\n`,
  );
  return { ...result, cpuMicrosecondsPerRequest };
}

/**
 * Sends `rate` requests a second, evenly spaced, round-robin over 100
 * keep-alive connections, for `seconds`; each is timed from when it was due,
 * so a late send counts against the path (no coordinated omission).
 */
async function measurePacedLatency(
  name: string,
  call: Call,
  rate: number,
  seconds: number,
): Promise<PacedLatency> {
  const agents = Array.from({ length: CONNECTIONS }, () => new Agent({ keepAlive: true, maxSockets: 1 }));
  const url = new URL(call.url);
  const template = JSON.stringify(call.body);
  const latencies: number[] = [];
  let errors = 0;
  let non2xx = 0;
  let sequence = 0;
  const send = (due: number) =>
    new Promise<void>((resolve) => {
      const body = call.bodies ? (call.bodies[sequence % call.bodies.length] as string) : template;
      const headers: Record<string, string> = { 'content-type': 'application/json', ...call.headers };
      for (const [key, value] of Object.entries(headers))
        headers[key] = value.replace('[<id>]', `paced-${sequence}`);
      const outgoing = httpRequest(
        {
          hostname: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
          agent: agents[sequence++ % CONNECTIONS],
        },
        (incoming) => {
          incoming.resume();
          incoming.on('end', () => {
            latencies.push(performance.now() - due);
            if ((incoming.statusCode ?? 0) >= 300) non2xx++;
            resolve();
          });
        },
      );
      outgoing.on('error', () => {
        errors++;
        resolve();
      });
      outgoing.end(body);
    });
  const total = Math.round(rate * seconds);
  const interval = 1000 / rate;
  const start = performance.now() + 50;
  const inFlight: Promise<void>[] = [];
  let next = 0;
  while (next < total) {
    const now = performance.now();
    while (next < total && start + next * interval <= now) inFlight.push(send(start + next++ * interval));
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(inFlight);
  for (const agent of agents) agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (fraction: number) =>
    round2(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * fraction))] ?? 0);
  const result = {
    requestsPerSecond: rate,
    requests: latencies.length,
    latencyP50Ms: at(0.5),
    latencyP99Ms: at(0.99),
    latencyMeanMs: round2(latencies.reduce((sum, value) => sum + value, 0) / Math.max(1, latencies.length)),
    errors,
    non2xx,
  };
  process.stdout.write(
    `${name} paced at ${rate}/s: p50 ${result.latencyP50Ms} ms, p99 ${result.latencyP99Ms} ms, mean ${result.latencyMeanMs} ms, errors ${errors}, non-2xx ${non2xx}\n`,
  );
  return result;
}

/** Full-speed load, not measured: the server's code is optimised before it is timed. */
async function prime(call: Call): Promise<void> {
  await runLoad({ ...loadOptions(call), durationSeconds: PRIME_SECONDS });
}

interface Comparison {
  /** Every path at 100 connections, as fast as it answers. */
  throughput: {
    direct: Measured;
    paths: Partial<Record<Path, Measured>>;
    versusDirect: Partial<Record<Path, number>>;
    /** The headline: each relay's requests/s ÷ the bare proxy's, same run. */
    versusBareProxy: Partial<Record<(typeof RELAYS)[number], number>>;
  };
  /** The paths paced at one rate all sustain, over 100 connections: the latency each adds. */
  pacedLatency: {
    requestsPerSecond: number;
    direct: PacedLatency;
    paths: Partial<Record<Path, PacedLatency>>;
    addedLatencyP50Ms: Partial<Record<Path, number>>;
    addedLatencyP99Ms: Partial<Record<Path, number>>;
  };
}

const round2 = (value: number) => Math.round(value * 100) / 100;
const ratio = (part: number, whole: number) => Math.round((part / whole) * 1000) / 1000;

/** `figure` of each of `paths`. */
function perPath<Value>(paths: readonly Path[], figure: (path: Path) => Value): Partial<Record<Path, Value>> {
  return Object.fromEntries(paths.map((path) => [path, figure(path)]));
}

/**
 * Every path of `paths` at full speed, then those of `pacedPaths` (and the
 * direct one) paced at a quarter of the slowest of them that is a relay.
 */
async function compare(
  name: string,
  direct: Call,
  paths: Partial<Record<Path, Call>>,
  pacedPaths: readonly Path[],
): Promise<Comparison> {
  const measured = PATHS.filter((path) => paths[path] !== undefined);
  const callOf = (path: Path) => paths[path] as Call;
  for (const call of [direct, ...measured.map(callOf)]) await prime(call);
  const directThroughput = await measureThroughput(`direct ${name}`, direct);
  const throughput: Partial<Record<Path, Measured>> = {};
  for (const path of measured) throughput[path] = await measureThroughput(`${path} ${name}`, callOf(path));
  const rateOf = (path: Path) => throughput[path]?.requestsPerSecond ?? 0;
  const slowestRelay = Math.min(...pacedPaths.filter((path) => path !== 'bareProxy').map(rateOf));
  const rate = Math.max(50, Math.round(slowestRelay / 4 / 50) * 50);
  const pacedSeconds = Math.max(3, Math.round(SECONDS / 2));
  const directPaced = await measurePacedLatency(`direct ${name}`, direct, rate, pacedSeconds);
  const paced: Partial<Record<Path, PacedLatency>> = {};
  for (const path of pacedPaths)
    paced[path] = await measurePacedLatency(`${path} ${name}`, callOf(path), rate, pacedSeconds);
  const pacedOf = (path: Path) => paced[path] as PacedLatency;
  return {
    throughput: {
      direct: directThroughput,
      paths: throughput,
      versusDirect: perPath(measured, (path) => ratio(rateOf(path), directThroughput.requestsPerSecond)),
      versusBareProxy: Object.fromEntries(
        RELAYS.filter((path) => paths[path]).map((path) => [path, ratio(rateOf(path), rateOf('bareProxy'))]),
      ),
    },
    pacedLatency: {
      requestsPerSecond: rate,
      direct: directPaced,
      paths: paced,
      addedLatencyP50Ms: perPath(pacedPaths, (path) =>
        round2(pacedOf(path).latencyP50Ms - directPaced.latencyP50Ms),
      ),
      addedLatencyP99Ms: perPath(pacedPaths, (path) =>
        round2(pacedOf(path).latencyP99Ms - directPaced.latencyP99Ms),
      ),
    },
  };
}

/** Pending orders in the polling case, and how long each of its runs is measured. */
const POLLED_ORDERS = Number(process.env.BENCH_POLLED_ORDERS ?? 200);
const POLLING_SECONDS = 8;
const POLLING_WARM_UP_SECONDS = 2;

/** Lookups and creates compared, on distinct orders; then the polling case, 1 and 5 tabs an order. */
async function runAll(here: URL, sandbox: ChildServer<{ orderIds: string[] }>) {
  const tokens = createLookupTokens(LOOKUP_SECRET, { maxRememberedOrders: 1 });
  const relayLookupBodies = await Promise.all(
    sandbox.info.orderIds.map(async (id) =>
      JSON.stringify({ order_id: id, lookup_token: await tokens.sign(id) }),
    ),
  );
  const serviceLookupBodies = sandbox.info.orderIds.map((id) => JSON.stringify({ order_id: id }));
  const children: { close(): Promise<void> }[] = [];
  try {
    const relays = {} as Record<(typeof RELAYS)[number], { url: string }>;
    for (const transport of RELAYS) {
      const relay = await startServerInChild(here, 'serveRelay', { sandboxUrl: sandbox.url, transport });
      children.push(relay);
      relays[transport] = relay;
    }
    const bareProxy = await startServerInChild(here, 'serveBareProxy', { sandboxUrl: sandbox.url });
    children.push(bareProxy);
    const serviceHeaders = { authorization: `Bearer ${SANDBOX_KEYS.secret}` };
    const directLookup = { body: {}, bodies: serviceLookupBodies, headers: serviceHeaders };
    const relayLookup = (relay: { url: string }): Call => ({
      url: `${relay.url}/api/checkout/lookup`,
      body: {},
      bodies: relayLookupBodies,
      headers: {},
      processes: { relay: relay.url, sandbox: sandbox.url },
    });
    const lookups = await compare(
      'lookups',
      { url: `${sandbox.url}/orders/lookup`, ...directLookup, processes: { sandbox: sandbox.url } },
      {
        relayGlobalFetch: relayLookup(relays.relayGlobalFetch),
        relayUndici: relayLookup(relays.relayUndici),
        bareProxy: {
          url: `${bareProxy.url}/orders/lookup`,
          ...directLookup,
          processes: { proxy: bareProxy.url, sandbox: sandbox.url },
        },
      },
      ['relayUndici', 'bareProxy'],
    );
    const creates = await compare(
      'creates',
      {
        url: `${sandbox.url}/orders/new`,
        body: creationInput,
        headers: { ...serviceHeaders, 'idempotency-key': 'bench-direct-[<id>]' },
        processes: { sandbox: sandbox.url },
      },
      {
        relayUndici: {
          url: `${relays.relayUndici.url}/api/checkout/orders`,
          body: checkoutIntent(),
          headers: { 'idempotency-key': 'bench-relayUndici-[<id>]' },
          processes: { relay: relays.relayUndici.url, sandbox: sandbox.url },
        },
        bareProxy: {
          url: `${bareProxy.url}/orders/new`,
          body: creationInput,
          headers: { ...serviceHeaders, 'idempotency-key': 'bench-proxy-[<id>]' },
          processes: { proxy: bareProxy.url, sandbox: sandbox.url },
        },
      },
      ['relayUndici', 'bareProxy'],
    );
    for (const child of children.splice(0)) await child.close();
    const polling = [];
    for (const tabsPerOrder of [1, 5]) {
      polling.push(
        await measurePolling(sandbox, {
          orders: POLLED_ORDERS,
          tabsPerOrder,
          warmUpSeconds: POLLING_WARM_UP_SECONDS,
          seconds: POLLING_SECONDS,
        }),
      );
    }
    return { lookups, creates, polling };
  } finally {
    for (const child of children) await child.close();
  }
}

/** The goals, judged on this run's figures. */
function targetsOf(lookups: Comparison, polling: readonly PollingFigures[]) {
  const relay = lookups.throughput.paths.relayUndici as Measured;
  const proxy = lookups.throughput.paths.bareProxy as Measured;
  const measured = lookups.throughput.versusBareProxy.relayUndici ?? 0;
  const addedP99 = lookups.pacedLatency.addedLatencyP99Ms.relayUndici ?? Number.NaN;
  const worstSharing = Math.max(...polling.map((run) => run.serviceLookupsPerOrderPer2s));
  process.stdout.write(
    `lookups on distinct orders through the relay (undici): ${(measured * 100).toFixed(1)} % of the bare proxy (target ≥ ${TARGET_LOOKUP_RATIO * 100} %), relay CPU ${relay.cpuMicrosecondsPerRequest.relay} µs/lookup vs proxy ${proxy.cpuMicrosecondsPerRequest.proxy} µs; p99 added ${addedP99} ms paced at ${lookups.pacedLatency.requestsPerSecond}/s (target ≤ ${TARGET_ADDED_P99_MS} ms); at most ${worstSharing} service lookups per order per 2 s with tabs polling (target ≤ 1)\n`,
  );
  return {
    lookupVersusBareProxy: {
      target: TARGET_LOOKUP_RATIO,
      measured,
      relayCpuMicrosecondsPerLookup: relay.cpuMicrosecondsPerRequest.relay,
      proxyCpuMicrosecondsPerLookup: proxy.cpuMicrosecondsPerRequest.proxy,
      met: measured >= TARGET_LOOKUP_RATIO,
    },
    lookupAddedP99Ms: {
      target: TARGET_ADDED_P99_MS,
      measured: addedP99,
      pacedAtRequestsPerSecond: lookups.pacedLatency.requestsPerSecond,
      met: addedP99 <= TARGET_ADDED_P99_MS,
    },
    serviceLookupsPerOrderPer2s: { target: 1, measured: worstSharing, met: worstSharing <= 1 },
  };
}

async function main(): Promise<void> {
  const here = new URL(import.meta.url);
  const loadBefore = loadavg();
  const sandbox = await startServerInChild<{ orderIds: string[] }>(here, 'serveSandbox', {
    orders: DISTINCT_ORDERS,
  });
  let figures: Awaited<ReturnType<typeof runAll>>;
  try {
    figures = await runAll(here, sandbox);
  } finally {
    await sandbox.close();
  }
  const targets = targetsOf(figures.lookups, figures.polling);
  const file = await writeResults('relay', {
    settings: {
      secondsPerThroughputRun: SECONDS,
      warmUpSecondsPerRun: WARM_UP_SECONDS,
      primeSecondsPerPath: PRIME_SECONDS,
      connections: CONNECTIONS,
      distinctOrders: DISTINCT_ORDERS,
      transport: 'loopback HTTP/1.1; the sandbox, each relay and the bare proxy in a child process each',
      machine: {
        cpus: cpus().length,
        loadAverageBefore: loadBefore.map(round2),
        loadAverageAfter: loadavg().map(round2),
        note: 'the load generator, the servers under test and anything else running share these cores (see the load averages); compare ratios and CPU per request within this run',
      },
      paths: {
        direct: 'autocannon → sandbox',
        relayGlobalFetch: 'autocannon → createCheckoutRelay({ fetch: globalThis.fetch }).node → sandbox',
        relayUndici:
          "autocannon → createCheckoutRelay().node from the Node entry (default on Node: undici's dispatcher, keep-alive Agent) → sandbox",
        bareProxy: 'autocannon → node:http server forwarding with http.request, no work → sandbox',
      },
      lookups: `each request a different order of ${DISTINCT_ORDERS} the sandbox holds, in turn: nothing to share`,
      pacedLatency:
        'requests evenly spaced at a quarter of the relay’s throughput, round-robin over 100 keep-alive connections, timed from their due time',
      polling: `${POLLED_ORDERS} pending orders created through a relay with an SQLite journal and its watcher (every 3 s), each polled every ${TAB_POLL_MS} ms after its last answer by 1, then 5 tabs; ${POLLING_SECONDS} s measured after ${POLLING_WARM_UP_SECONDS} s`,
    },
    lookups: figures.lookups,
    creates: figures.creates,
    polling: figures.polling,
    targets,
  });
  process.stdout.write(`wrote ${file}\n`);
}

if (isMainModule(import.meta.url)) await main();
