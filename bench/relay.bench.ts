/**
 * The merchant relay's speed over loopback HTTP, against a bare forwarding
 * proxy and the same calls made straight to the sandbox, all in the same run
 * (issue #3): lookups and creates per second and p50/p99 latency at 100
 * connections. The headline is the relay against the bare proxy: both are
 * one extra hop, so the ratio is what the relay's own work costs.
 *
 * - Throughput: autocannon, 100 connections, as fast as each path answers.
 * - Added latency: requests evenly paced at a rate every path sustains (a
 *   quarter of the slower relay's throughput), spread over 100 keep-alive
 *   connections, each timed from its scheduled start. autocannon's own rate
 *   limit sends each second's requests in one burst, which would time the
 *   burst's queue rather than the relay.
 * - Paths: the sandbox direct; the relay with its default transport on Node
 *   (undici's `request`) and with the runtime's global fetch given as
 *   `fetch`; and a bare `node:http` proxy that forwards without any work,
 *   the ceiling for any extra hop on this machine.
 * - CPU time per request of every process on the path, read from each child.
 *
 * Targets: lookups through the relay at least 85 % of the bare proxy's rate,
 * and at most 5 ms added at p99. The machine's load average is recorded
 * beside the figures: other work on a shared machine moves them. Each server runs in its own child process; the
 * relays keep their rate limiter on (with a bucket too big to refuse) so its
 * cost is counted. Writes bench/results/relay.json.
 */
import { Agent, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { createSandbox, SANDBOX_KEYS } from '../src/sandbox/index.js';
import {
  createCheckoutRelay,
  createLookupTokens,
  listen,
  type NodeListener,
  toNodeListener,
} from '../src/server/node.js';
import { SERVICE_MAX_BODY_BYTES } from '../src/shared/service-contract.js';
import { checkoutIntent, creationInput, priceAnyCart, UNLIMITED } from '../test/fixtures/checkout-data.js';
import { createTestRelay, LOOKUP_SECRET } from '../test/fixtures/relay.js';
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
/** Seconds of full-speed load each path gets before it is measured, so JIT warm-up is not measured. */
const PRIME_SECONDS = 6;
const CONNECTIONS = 100;
/** Lookups through the relay as a share of the bare proxy's. */
const TARGET_LOOKUP_RATIO = 0.85;
const TARGET_ADDED_P99_MS = 5;

/** The paths compared with the direct one. */
type Path = 'relayGlobalFetch' | 'relayUndici' | 'bareProxy';
const PATHS: readonly Path[] = ['relayGlobalFetch', 'relayUndici', 'bareProxy'];
const RELAYS = ['relayGlobalFetch', 'relayUndici'] as const;

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
  transport: (typeof RELAYS)[number];
}): Promise<StartedServer<{ lookupToken: string }>> {
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
  return {
    url: server.url,
    info: { lookupToken: await createLookupTokens(LOOKUP_SECRET).sign(orderId) },
    close: server.close,
  };
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

async function cpuOf(url: string): Promise<{ cpuMicroseconds: number; requests: number }> {
  return (await (await fetch(`${url}${CPU_PATH}`)).json()) as { cpuMicroseconds: number; requests: number };
}

function loadOptions(call: Call) {
  return {
    url: call.url,
    connections: CONNECTIONS,
    body: JSON.stringify(call.body),
    headers: { 'content-type': 'application/json', ...call.headers },
    // Creates carry a fresh idempotency key each (`[<id>]`), so every one makes an order.
    idReplacement: true,
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
      const body = template;
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
    paths: Record<Path, Measured>;
    versusDirect: Record<Path, number>;
    /** The headline: each relay's requests/s ÷ the bare proxy's, same run. */
    versusBareProxy: Record<(typeof RELAYS)[number], number>;
  };
  /** Every path paced at one rate all sustain, over 100 connections: the latency each adds. */
  pacedLatency: {
    requestsPerSecond: number;
    direct: PacedLatency;
    paths: Record<Path, PacedLatency>;
    addedLatencyP50Ms: Record<Path, number>;
    addedLatencyP99Ms: Record<Path, number>;
  };
}

const round2 = (value: number) => Math.round(value * 100) / 100;

function perPath<Value>(figure: (path: Path) => Value): Record<Path, Value> {
  return Object.fromEntries(PATHS.map((path) => [path, figure(path)])) as Record<Path, Value>;
}

async function compare(name: string, direct: Call, paths: Record<Path, Call>): Promise<Comparison> {
  for (const call of [direct, ...Object.values(paths)]) await prime(call);
  const directThroughput = await measureThroughput(`direct ${name}`, direct);
  const throughput = {} as Record<Path, Measured>;
  for (const path of PATHS) throughput[path] = await measureThroughput(`${path} ${name}`, paths[path]);
  const slowestRelay = Math.min(...RELAYS.map((path) => throughput[path].requestsPerSecond));
  const rate = Math.max(50, Math.round(slowestRelay / 4 / 50) * 50);
  const pacedSeconds = Math.max(4, Math.round(SECONDS / 2));
  const directPaced = await measurePacedLatency(`direct ${name}`, direct, rate, pacedSeconds);
  const paced = {} as Record<Path, PacedLatency>;
  for (const path of PATHS)
    paced[path] = await measurePacedLatency(`${path} ${name}`, paths[path], rate, pacedSeconds);
  return {
    throughput: {
      direct: directThroughput,
      paths: throughput,
      versusDirect: perPath(
        (path) =>
          Math.round((throughput[path].requestsPerSecond / directThroughput.requestsPerSecond) * 1000) / 1000,
      ),
      versusBareProxy: Object.fromEntries(
        RELAYS.map((path) => [
          path,
          Math.round((throughput[path].requestsPerSecond / throughput.bareProxy.requestsPerSecond) * 1000) /
            1000,
        ]),
      ) as Record<(typeof RELAYS)[number], number>,
    },
    pacedLatency: {
      requestsPerSecond: rate,
      direct: directPaced,
      paths: paced,
      addedLatencyP50Ms: perPath((path) => round2(paced[path].latencyP50Ms - directPaced.latencyP50Ms)),
      addedLatencyP99Ms: perPath((path) => round2(paced[path].latencyP99Ms - directPaced.latencyP99Ms)),
    },
  };
}

async function main(): Promise<void> {
  const here = new URL(import.meta.url);
  const loadBefore = loadavg();
  const sandbox = await startServerInChild<{ orderId: string }>(here, 'serveSandbox');
  const orderId = sandbox.info.orderId;
  const children: { close(): Promise<void> }[] = [];
  let lookups: Comparison;
  let creates: Comparison;
  try {
    const relays = {} as Record<(typeof RELAYS)[number], { url: string; info: { lookupToken: string } }>;
    for (const transport of RELAYS) {
      const relay = await startServerInChild<{ lookupToken: string }>(here, 'serveRelay', {
        sandboxUrl: sandbox.url,
        orderId,
        transport,
      });
      children.push(relay);
      relays[transport] = relay;
    }
    const bareProxy = await startServerInChild(here, 'serveBareProxy', { sandboxUrl: sandbox.url });
    children.push(bareProxy);
    const serviceHeaders = { authorization: `Bearer ${SANDBOX_KEYS.secret}` };
    const directLookup = { body: { order_id: orderId }, headers: serviceHeaders };
    const directCreate = {
      body: creationInput,
      headers: { ...serviceHeaders, 'idempotency-key': 'bench-direct-[<id>]' },
    };
    const relayPaths = (
      build: (relay: (typeof relays)[keyof typeof relays], path: Path) => Call,
    ): Record<(typeof RELAYS)[number], Call> => ({
      relayGlobalFetch: build(relays.relayGlobalFetch, 'relayGlobalFetch'),
      relayUndici: build(relays.relayUndici, 'relayUndici'),
    });
    lookups = await compare(
      'lookups',
      { url: `${sandbox.url}/orders/lookup`, ...directLookup, processes: { sandbox: sandbox.url } },
      {
        ...relayPaths((relay) => ({
          url: `${relay.url}/api/checkout/lookup`,
          body: { order_id: orderId, lookup_token: relay.info.lookupToken },
          headers: {},
          processes: { relay: relay.url, sandbox: sandbox.url },
        })),
        bareProxy: {
          url: `${bareProxy.url}/orders/lookup`,
          ...directLookup,
          processes: { proxy: bareProxy.url, sandbox: sandbox.url },
        },
      },
    );
    creates = await compare(
      'creates',
      { url: `${sandbox.url}/orders/new`, ...directCreate, processes: { sandbox: sandbox.url } },
      {
        ...relayPaths((relay, path) => ({
          url: `${relay.url}/api/checkout/orders`,
          body: checkoutIntent(),
          headers: { 'idempotency-key': `bench-${path}-[<id>]` },
          processes: { relay: relay.url, sandbox: sandbox.url },
        })),
        bareProxy: {
          url: `${bareProxy.url}/orders/new`,
          body: creationInput,
          headers: { ...serviceHeaders, 'idempotency-key': 'bench-proxy-[<id>]' },
          processes: { proxy: bareProxy.url, sandbox: sandbox.url },
        },
      },
    );
  } finally {
    for (const child of children) await child.close();
    await sandbox.close();
  }

  const targets = Object.fromEntries(
    RELAYS.map((path) => {
      const ratio = lookups.throughput.versusBareProxy[path];
      const addedP99 = lookups.pacedLatency.addedLatencyP99Ms[path];
      const cpu = lookups.throughput.paths[path].cpuMicrosecondsPerRequest.relay;
      const proxyCpu = lookups.throughput.paths.bareProxy.cpuMicrosecondsPerRequest.proxy;
      process.stdout.write(
        `lookups through ${path}: ${(ratio * 100).toFixed(1)} % of the bare proxy (target ≥ ${TARGET_LOOKUP_RATIO * 100} %), relay CPU ${cpu} µs/request vs proxy ${proxyCpu} µs; p99 added ${addedP99} ms paced at ${lookups.pacedLatency.requestsPerSecond}/s over ${CONNECTIONS} connections (target ≤ ${TARGET_ADDED_P99_MS} ms)\n`,
      );
      return [
        path,
        {
          lookupVersusBareProxy: {
            target: TARGET_LOOKUP_RATIO,
            measured: ratio,
            met: ratio >= TARGET_LOOKUP_RATIO,
          },
          lookupAddedP99Ms: {
            target: TARGET_ADDED_P99_MS,
            measured: addedP99,
            pacedAtRequestsPerSecond: lookups.pacedLatency.requestsPerSecond,
            met: addedP99 <= TARGET_ADDED_P99_MS,
          },
        },
      ];
    }),
  );
  const file = await writeResults('relay', {
    settings: {
      secondsPerThroughputRun: SECONDS,
      warmUpSecondsPerRun: WARM_UP_SECONDS,
      primeSecondsPerPath: PRIME_SECONDS,
      connections: CONNECTIONS,
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
          "autocannon → createCheckoutRelay().node from the Node entry (default on Node: undici's request, keep-alive Agent) → sandbox",
        bareProxy: 'autocannon → node:http server forwarding with http.request, no work → sandbox',
      },
      pacedLatency:
        'requests evenly spaced at a quarter of the slower relay’s throughput, round-robin over 100 keep-alive connections, timed from their due time',
    },
    lookups,
    creates,
    targets,
  });
  process.stdout.write(`wrote ${file}\n`);
}

if (isMainModule(import.meta.url)) await main();
