/**
 * The sandbox's speed over loopback HTTP, beside a bare `node:http` JSON
 * server measured in the same run: lookups/s (target: at least 50 % of the
 * bare server's requests/s) and creates/s; then lookup and page times with
 * 100,000 orders held, over HTTP and in process. Writes bench/results/sandbox.json.
 *
 * The machine may be shared, so lookups run in alternating rounds (bare,
 * sandbox, bare, sandbox, …); the ratio is the median over rounds of each
 * sandbox round against the bare round just before it. Each server's CPU time
 * per request is measured beside its requests/s, a steadier figure there.
 */
import { createSandbox, SANDBOX_KEYS, startSandbox } from '../src/sandbox/index.js';
import { orderInput } from '../test/fixtures/sandbox.js';
import {
  type ChildServer,
  isMainModule,
  type LoadResult,
  medianMicroseconds,
  runLoad,
  type StartedServer,
  startServerInChild,
  writeResults,
} from './lib.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = 10;
const LARGE_STORE_ORDERS = 100_000;
const PAGE_SIZE = 256;

const headers = { authorization: `Bearer ${SANDBOX_KEYS.secret}`, 'content-type': 'application/json' };

/** A creation input with a customer and a started payment, like the relay's. */
const creationInput = orderInput();

/** What the sandbox child tells the benchmark. */
interface SandboxInfo {
  newestOrderId: string;
  oldestOrderId: string;
  lastPageNumber: number;
}

/** A load run with the server's CPU time per answered request. */
interface MeasuredLoad extends LoadResult {
  serverCpuMicrosecondsPerRequest: number;
}

/** Child-process starter: a sandbox on loopback holding `orders` seeded orders. */
export async function serveSandbox({ orders }: { orders: number }): Promise<StartedServer<SandboxInfo>> {
  const running = await startSandbox({ port: 0, approveAfterMs: 1000 });
  const ids = running.sandbox.seedOrders(orders, creationInput);
  return {
    url: running.url,
    info: {
      newestOrderId: ids.at(-1) as string,
      oldestOrderId: ids[0] as string,
      lastPageNumber: Math.ceil(orders / PAGE_SIZE),
    },
    close: running.close,
  };
}

async function measure(server: ChildServer, path: string, body: unknown): Promise<MeasuredLoad> {
  const cpuBefore = await server.cpuMicroseconds();
  const load = await runLoad({
    url: `${server.url}${path}`,
    connections: CONNECTIONS,
    durationSeconds: SECONDS,
    body: JSON.stringify(body),
    headers,
  });
  const cpu = (await server.cpuMicroseconds()) - cpuBefore;
  return { ...load, serverCpuMicrosecondsPerRequest: Math.round(cpu / Math.max(load.totalRequests, 1)) };
}

function roundTo(value: number): number {
  return Math.round(value * 1000) / 1000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function inProcessTimings() {
  const sandbox = createSandbox({ approveAfterMs: 1000 });
  const seedStart = performance.now();
  const ids = sandbox.seedOrders(LARGE_STORE_ORDERS, creationInput);
  const seedMs = Math.round(performance.now() - seedStart);
  const call = (path: string, body: unknown) =>
    sandbox.handle(
      new Request(`http://sandbox${path}`, { method: 'POST', headers, body: JSON.stringify(body) }),
    );
  const lastPage = Math.ceil(LARGE_STORE_ORDERS / PAGE_SIZE);
  return {
    orders: sandbox.orderCount,
    seedMs,
    lookupNewestMicroseconds: await medianMicroseconds(2000, () =>
      call('/orders/lookup', { order_id: ids.at(-1) }),
    ),
    lookupOldestMicroseconds: await medianMicroseconds(2000, () =>
      call('/orders/lookup', { order_id: ids[0] }),
    ),
    page1Size256Microseconds: await medianMicroseconds(300, () =>
      call('/orders/page', { page_number: 1, page_size: PAGE_SIZE }),
    ),
    lastPageSize256Microseconds: await medianMicroseconds(300, () =>
      call('/orders/page', { page_number: lastPage, page_size: PAGE_SIZE }),
    ),
    page1Size25Microseconds: await medianMicroseconds(1000, () =>
      call('/orders/page', { page_number: 1, page_size: 25 }),
    ),
  };
}

async function main(): Promise<void> {
  const bare = await startServerInChild(new URL('./lib.ts', import.meta.url), 'startBareJsonServer');
  const small = await startServerInChild<SandboxInfo>(new URL(import.meta.url), 'serveSandbox', {
    orders: 1,
  });
  const bareRounds: MeasuredLoad[] = [];
  const lookupRounds: MeasuredLoad[] = [];
  let creates: MeasuredLoad;
  try {
    // Unmeasured warm-up, so the rounds compare steady states rather than JIT compilation.
    await runLoad({
      url: `${bare.url}/orders/lookup`,
      connections: CONNECTIONS,
      durationSeconds: 2,
      body: '{}',
      headers,
    });
    await runLoad({
      url: `${small.url}/orders/lookup`,
      connections: CONNECTIONS,
      durationSeconds: 2,
      body: JSON.stringify({ order_id: small.info.newestOrderId }),
      headers,
    });
    for (let round = 1; round <= ROUNDS; round++) {
      bareRounds.push(
        log(`round ${round}: bare node:http`, await measure(bare, '/orders/lookup', { order_id: 'or_x' })),
      );
      lookupRounds.push(
        log(
          `round ${round}: sandbox lookups`,
          await measure(small, '/orders/lookup', { order_id: small.info.newestOrderId }),
        ),
      );
    }
    creates = log('sandbox creates', await measure(small, '/orders/new', creationInput));
  } finally {
    await Promise.all([bare.close(), small.close()]);
  }

  const large = await startServerInChild<SandboxInfo>(new URL(import.meta.url), 'serveSandbox', {
    orders: LARGE_STORE_ORDERS,
  });
  let largeLookups: MeasuredLoad;
  let largeLastPages: MeasuredLoad;
  try {
    await runLoad({
      url: `${large.url}/orders/lookup`,
      connections: CONNECTIONS,
      durationSeconds: 2,
      body: JSON.stringify({ order_id: large.info.newestOrderId }),
      headers,
    });
    largeLookups = log(
      `sandbox lookups of the oldest of ${LARGE_STORE_ORDERS} orders`,
      await measure(large, '/orders/lookup', { order_id: large.info.oldestOrderId }),
    );
    largeLastPages = log(
      `sandbox last page (size ${PAGE_SIZE}) of ${LARGE_STORE_ORDERS} orders`,
      await measure(large, '/orders/page', { page_number: large.info.lastPageNumber, page_size: PAGE_SIZE }),
    );
  } finally {
    await large.close();
  }

  const inProcess = await inProcessTimings();
  process.stdout.write(`in process, ${LARGE_STORE_ORDERS} orders: ${JSON.stringify(inProcess)}\n`);

  const best = (rounds: MeasuredLoad[]) => Math.max(...rounds.map((round) => round.requestsPerSecond));
  const medianOf = (rounds: MeasuredLoad[], pick: (round: MeasuredLoad) => number) =>
    median(rounds.map(pick));
  // Each sandbox round against the bare round just before it: both met the same neighbours on the machine.
  const pairedRatios = lookupRounds.map((round, index) =>
    roundTo(round.requestsPerSecond / (bareRounds[index]?.requestsPerSecond ?? Number.NaN)),
  );
  const ratio = median(pairedRatios);
  const bareBest = best(bareRounds);
  const lookupBest = best(lookupRounds);
  const bareCpu = medianOf(bareRounds, (round) => round.serverCpuMicrosecondsPerRequest);
  const lookupCpu = medianOf(lookupRounds, (round) => round.serverCpuMicrosecondsPerRequest);
  const cpuRatio = roundTo(bareCpu / lookupCpu);
  process.stdout.write(
    `lookups vs bare node:http, median of paired rounds: ${(ratio * 100).toFixed(1)} % (target ≥ 50 %; rounds ${pairedRatios.join(', ')}); ` +
      `best ${lookupBest}/s vs ${bareBest}/s (${((lookupBest / bareBest) * 100).toFixed(1)} %); ` +
      `server CPU per request ${lookupCpu} µs vs ${bareCpu} µs (${(cpuRatio * 100).toFixed(1)} %)\n`,
  );
  const file = await writeResults('sandbox', {
    settings: {
      secondsPerRun: SECONDS,
      rounds: ROUNDS,
      connections: CONNECTIONS,
      transport: 'loopback HTTP/1.1; autocannon in this process, each server in its own child process',
    },
    lookupsVersusBare: {
      ratio,
      ratioIs: 'median over rounds of sandbox lookups/s ÷ bare node:http requests/s measured just before',
      target: 0.5,
      met: ratio >= 0.5,
      pairedRatios,
      bareBestRequestsPerSecond: bareBest,
      sandboxBestLookupsPerSecond: lookupBest,
      bestRatio: roundTo(lookupBest / bareBest),
      bareMedianCpuMicrosecondsPerRequest: bareCpu,
      sandboxMedianCpuMicrosecondsPerRequest: lookupCpu,
      cpuRatio,
    },
    bareNodeHttpJsonRounds: bareRounds,
    sandboxLookupRounds: lookupRounds,
    sandboxCreates: creates,
    largeStore: {
      orders: LARGE_STORE_ORDERS,
      httpLookupOldest: largeLookups,
      httpLastPageSize256: largeLastPages,
      inProcess,
    },
  });
  process.stdout.write(`wrote ${file}\n`);
}

function log<T extends MeasuredLoad>(name: string, result: T): T {
  process.stdout.write(
    `${name}: ${result.requestsPerSecond}/s, p50 ${result.latencyP50Ms} ms, p99 ${result.latencyP99Ms} ms, ` +
      `server CPU ${result.serverCpuMicrosecondsPerRequest} µs/request, errors ${result.errors}, non-2xx ${result.non2xx}\n`,
  );
  return result;
}

if (isMainModule(import.meta.url)) await main();
