/**
 * `pay-checkout serve` against the library's relay embedded in a plain Node
 * server, side by side in one run, and serve's memory.
 *
 * - The path: autocannon → the relay → a sandbox over loopback HTTP, each in
 *   a process of its own (bench/serve-children.ts): serve as a merchant
 *   starts it (`startServe` from its configuration and environment, an
 *   SQLite journal and its watcher, the sandbox as its `service`), and the
 *   library's `createCheckoutRelay` in a `node:http` server with the same
 *   journal kind, shop, limits and proxy trust.
 * - Lookups on 30,000 distinct pending orders (100 connections), then
 *   creates by new shoppers (20), each from its own client address
 *   (bench/serve-requests.ts), as fast as each relay answers; the two take
 *   short turns, 4 rounds of lookups and 3 of creates, so both see the same
 *   machine. Each run starts on idle relays and its CPU is read once the
 *   sandbox is quiet again (a created order is paid a second later, and
 *   the relay's watcher looks it up and delivers it), so a create's CPU is
 *   its whole life. Each run: requests/s, CPU per request of every process
 *   on the path (the relay, the sandbox), service calls per request, how
 *   busy the generator was and the load average. A generator near a full
 *   core caps both sides alike and flatters the slower one: the output
 *   says so when it happens.
 * - Memory (bench/serve-memory.ts): an idle serve after start, and the same
 *   process holding 10,000 pending orders created through it.
 *
 * Target: serve's lookups at 0.9× the library relay's or better (the
 * median of the rounds' ratios). About 3 minutes on a quiet machine;
 * `BENCH_SECONDS` lengthens each measured run, `BENCH_ROUNDS` sets the
 * rounds, `BENCH_PENDING_ORDERS` shrinks the memory run for a quick try. `BENCH_CPU_PROF`
 * names a folder for CPU profiles of both relays (`node --cpu-prof`).
 * Writes bench/results/serve.json.
 */
import { cpus } from 'node:os';
import { cpuOf } from './cpu-report.js';
import {
  type ChildServer,
  isMainModule,
  type LoadOptions,
  loadAverage,
  runLoad,
  startServerInChild,
  writeResults,
} from './lib.js';
import { measureServeMemory } from './serve-memory.js';
import { createRequests, lookupRequests } from './serve-requests.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
/** `BENCH_ROUNDS`, when set: the rounds of both kinds. */
const ROUNDS_GIVEN = process.env.BENCH_ROUNDS === undefined ? undefined : Number(process.env.BENCH_ROUNDS);
/**
 * Turns per kind: short and several, since the other work on a shared
 * machine comes in bursts that a few long turns would catch on one side;
 * fewer of creates, whose runs last longer (their watcher's work waited out).
 */
const ROUNDS = { lookups: ROUNDS_GIVEN ?? 4, creates: ROUNDS_GIVEN ?? 3 } as const;
/** How long the sandbox stays unasked before a run counts as done: creates wait out a watcher pass. */
const QUIET_MS = { lookups: 500, creates: 3_500 } as const;
/** Full-speed load each relay gets before the first round, so JIT warm-up is not measured. */
const PRIME_SECONDS = 3;
/**
 * Connections per kind: lookups as bench/relay.bench.ts loads them; creates
 * fewer, enough to keep a relay busy, since the creates a run leaves in
 * flight when it stops (a create costs several lookups) would weigh on the
 * next run, the other relay's.
 */
const CONNECTIONS = { lookups: 100, creates: 20 } as const;
type Kind = keyof typeof CONNECTIONS;
const DISTINCT_ORDERS = 30_000;
const TARGET_LOOKUP_RATIO = 0.9;
/** A generator busier than this share of one core caps what it measures. */
const GENERATOR_SATURATED = 0.9;
const CHILDREN = new URL('./serve-children.ts', import.meta.url);

type Side = 'serve' | 'library';
const SIDES: readonly Side[] = ['serve', 'library'];

/** A relay under test and the sandbox behind it. */
interface Target {
  side: Side;
  kind: Kind;
  url: string;
  path: string;
  processes: Record<string, ChildServer>;
  /** The sandbox's URL, whose calls served are counted. */
  service: string;
}

/** One measured run. */
interface Run {
  round: number;
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  errors: number;
  non2xx: number;
  totalRequests: number;
  /** CPU µs of each process on the path per request the generator completed. */
  cpuMicrosecondsPerRequest: Record<string, number>;
  /** Calls the sandbox served per request the generator completed, the watcher's included. */
  serviceCallsPerRequest: number;
  /** The generator's CPU over the run's wall time: 1 is a full core. */
  generatorBusy: number;
  loadAverage: [number, number, number];
}

const round2 = (value: number) => Math.round(value * 100) / 100;
const ratio = (part: number, whole: number) => Math.round((part / whole) * 1000) / 1000;

function loadOptions(target: Target, next: NonNullable<LoadOptions['next']>, seconds: number): LoadOptions {
  return {
    url: `${target.url}${target.path}`,
    connections: CONNECTIONS[target.kind],
    durationSeconds: seconds,
    headers: { 'content-type': 'application/json' },
    next,
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until the sandbox has served no call for `QUIET_MS[kind]` (at most
 * 30 s): the relays are done with the run's requests and, for creates, their
 * watchers have looked up and delivered the orders made (a watcher pass
 * comes every 3 s), so the next run starts on idle relays and the CPU read
 * then holds each request's whole work.
 */
async function settle(target: Target): Promise<void> {
  const deadline = performance.now() + 30_000;
  let quietSince = performance.now();
  let calls = (await cpuOf(target.service)).requests;
  while (performance.now() < deadline && performance.now() - quietSince < QUIET_MS[target.kind]) {
    await pause(250);
    const now = (await cpuOf(target.service)).requests;
    if (now !== calls) quietSince = performance.now();
    calls = now;
  }
}

/** One run at full speed from idle relays, with each process's CPU until they are idle again, and the generator's. */
async function measure(
  name: string,
  target: Target,
  next: NonNullable<LoadOptions['next']>,
  round: number,
): Promise<Run> {
  const processes = Object.entries(target.processes);
  const before = await Promise.all(processes.map(([, child]) => child.cpuMicroseconds()));
  const callsBefore = (await cpuOf(target.service)).requests;
  const generatorBefore = process.cpuUsage();
  const start = performance.now();
  const result = await runLoad(loadOptions(target, next, SECONDS));
  const wallMicroseconds = (performance.now() - start) * 1000;
  const generator = process.cpuUsage(generatorBefore);
  await settle(target);
  const after = await Promise.all(processes.map(([, child]) => child.cpuMicroseconds()));
  const calls = (await cpuOf(target.service)).requests - callsBefore;
  const served = Math.max(1, result.totalRequests);
  const cpuMicrosecondsPerRequest = Object.fromEntries(
    processes.map(([processName], index) => [
      processName,
      Math.round(((after[index] as number) - (before[index] as number)) / served),
    ]),
  );
  const run: Run = {
    round,
    ...result,
    cpuMicrosecondsPerRequest,
    serviceCallsPerRequest: round2(calls / served),
    generatorBusy: round2((generator.user + generator.system) / wallMicroseconds),
    loadAverage: loadAverage(),
  };
  process.stdout.write(
    `${name} round ${round}: ${run.requestsPerSecond}/s, p50 ${run.latencyP50Ms} ms, p99 ${run.latencyP99Ms} ms, errors ${run.errors}, non-2xx ${run.non2xx}, CPU µs/request ${JSON.stringify(cpuMicrosecondsPerRequest)}, service calls/request ${run.serviceCallsPerRequest}, generator ${Math.round(run.generatorBusy * 100)} % of a core, load ${run.loadAverage[0]}\n`,
  );
  return run;
}

/** The middle value. */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** A side's runs summed up: requests/s over all its rounds, and each process's median CPU per request. */
function summary(runs: readonly Run[]) {
  const requests = runs.reduce((sum, run) => sum + run.totalRequests, 0);
  const names = Object.keys(runs[0]?.cpuMicrosecondsPerRequest ?? {});
  return {
    requestsPerSecond: Math.round(requests / (runs.length * SECONDS)),
    cpuMicrosecondsPerRequest: Object.fromEntries(
      names.map((name) => [name, median(runs.map((run) => run.cpuMicrosecondsPerRequest[name] ?? 0))]),
    ),
    serviceCallsPerRequest: round2(median(runs.map((run) => run.serviceCallsPerRequest))),
    non2xx: runs.reduce((sum, run) => sum + run.non2xx, 0),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
  };
}

/**
 * Both relays in turns: primed, then `ROUNDS[kind]` rounds, the first relay of a
 * round alternating; serve ÷ library for throughput and for each process's
 * CPU per request.
 */
async function compare(
  kind: Kind,
  targets: Record<Side, Target>,
  nexts: Record<Side, NonNullable<LoadOptions['next']>>,
) {
  for (const side of SIDES) await runLoad(loadOptions(targets[side], nexts[side], PRIME_SECONDS));
  await settle(targets.serve);
  const runs: Record<Side, Run[]> = { serve: [], library: [] };
  for (let round = 1; round <= ROUNDS[kind]; round++) {
    const order = round % 2 ? SIDES : [...SIDES].reverse();
    for (const side of order)
      runs[side].push(await measure(`${side} ${kind}`, targets[side], nexts[side], round));
  }
  const serve = summary(runs.serve);
  const library = summary(runs.library);
  const relayCpu = (side: Side) =>
    serve.cpuMicrosecondsPerRequest[side] ?? library.cpuMicrosecondsPerRequest[side] ?? 0;
  const perRound = runs.serve.map((run, index) =>
    ratio(run.requestsPerSecond, (runs.library[index] as Run).requestsPerSecond),
  );
  const serveOverLibrary = {
    /** The median of the rounds' ratios: a burst of other work in one turn moves it least. */
    requestsPerSecond: Math.round(median(perRound) * 1000) / 1000,
    requestsPerSecondPerRound: perRound,
    requestsPerSecondOfAllRounds: ratio(serve.requestsPerSecond, library.requestsPerSecond),
    relayCpuPerRequest: ratio(relayCpu('serve'), relayCpu('library')),
    sandboxCpuPerRequest: ratio(
      serve.cpuMicrosecondsPerRequest.sandbox ?? 0,
      library.cpuMicrosecondsPerRequest.sandbox ?? 0,
    ),
  };
  process.stdout.write(
    `${kind}: serve ${serve.requestsPerSecond}/s (${relayCpu('serve')} µs CPU each), library ${library.requestsPerSecond}/s (${relayCpu('library')} µs); serve ÷ library ${serveOverLibrary.requestsPerSecond} (median of rounds ${perRound.join(', ')}), CPU per request ${serveOverLibrary.relayCpuPerRequest}\n`,
  );
  return { runs, serve, library, serveOverLibrary };
}

type Comparison = Awaited<ReturnType<typeof compare>>;

/** The generator's busiest run, and whether it capped what it measured. */
function generatorOf(comparisons: readonly Comparison[]) {
  const busiest = Math.max(
    ...comparisons.flatMap((comparison) =>
      SIDES.flatMap((side) => comparison.runs[side].map((run) => run.generatorBusy)),
    ),
  );
  const saturated = busiest >= GENERATOR_SATURATED;
  if (saturated) {
    process.stdout.write(
      `WARNING: the load generator was saturated (${Math.round(busiest * 100)} % of a core at its busiest): it capped both relays alike, so the ratios flatter the slower one; read CPU per request instead.\n`,
    );
  }
  return { busiestShareOfACore: busiest, saturatedAbove: GENERATOR_SATURATED, saturated };
}

/** Starts the sandbox and both relays, compares lookups then creates, then measures serve's memory. */
async function runAll(profileFolder: string | undefined) {
  const profile = profileFolder ? ['--cpu-prof', `--cpu-prof-dir=${profileFolder}`] : [];
  const sandbox = await startServerInChild<{ orderIds: string[] }>(CHILDREN, 'serveBenchSandbox', {
    seededOrders: DISTINCT_ORDERS,
    // Created orders are paid a second later: the watchers look each up once, deliver it and let it go.
    approveAfterMs: 1_000,
  });
  const children: ChildServer[] = [sandbox];
  try {
    const relays = {} as Record<Side, ChildServer>;
    for (const side of SIDES) {
      const starter = side === 'serve' ? 'serveServe' : 'serveLibraryRelay';
      relays[side] = await startServerInChild(CHILDREN, starter, { sandboxUrl: sandbox.url }, profile);
      children.push(relays[side]);
    }
    const target = (side: Side, kind: Kind, path: string): Target => ({
      side,
      kind,
      url: relays[side].url,
      path: side === 'serve' ? `/checkout/${path}` : `/api/checkout/${path}`,
      processes: { [side]: relays[side], sandbox },
      service: sandbox.url,
    });
    const lookupNext = await lookupRequests(sandbox.info.orderIds);
    const lookups = await compare(
      'lookups',
      { serve: target('serve', 'lookups', 'lookup'), library: target('library', 'lookups', 'lookup') },
      { serve: lookupNext, library: lookupNext },
    );
    const createNext = createRequests();
    const creates = await compare(
      'creates',
      { serve: target('serve', 'creates', 'orders'), library: target('library', 'creates', 'orders') },
      { serve: createNext, library: createNext },
    );
    for (const child of children.splice(1)) await child.close();
    return { lookups, creates };
  } finally {
    for (const child of children) await child.close();
  }
}

async function main(): Promise<void> {
  const loadBefore = loadAverage();
  const profileFolder = process.env.BENCH_CPU_PROF;
  const { lookups, creates } = await runAll(profileFolder);
  const generator = generatorOf([lookups, creates]);
  const memory = await measureServeMemory(CHILDREN);
  const measured = lookups.serveOverLibrary.requestsPerSecond;
  const met = measured >= TARGET_LOOKUP_RATIO;
  process.stdout.write(
    `serve's lookups at ${measured}× the library relay's (target ≥ ${TARGET_LOOKUP_RATIO}): ${met ? 'met' : 'NOT met'}; load average ${loadBefore.join(' ')} before, ${loadAverage().join(' ')} after\n`,
  );
  const file = await writeResults('serve', {
    settings: {
      secondsPerRun: SECONDS,
      rounds: ROUNDS,
      quietMsAfterEachRun: QUIET_MS,
      primeSecondsPerRelay: PRIME_SECONDS,
      connections: CONNECTIONS,
      distinctOrders: DISTINCT_ORDERS,
      cpus: cpus().length,
      profiles: profileFolder ?? null,
      paths: {
        serve:
          'autocannon → startServe (own process: SQLite journal, watcher, default limits, trustProxy 1, catalogue) → sandbox (own process)',
        library:
          'autocannon → createCheckoutRelay().node in node:http (own process: SQLite journal, watcher, default limits, trustProxy 1) → sandbox (own process)',
      },
      requests:
        'every request from its own client address (X-Forwarded-For through one trusted hop) with the shop’s Origin; lookups go round 30,000 pending orders with their tokens; creates pay from a new number at most 3 times each',
      cpu: 'each process’s CPU time over the run divided by the requests the generator completed',
      note: 'the generator, both relays, the sandbox and other work share these cores: compare serve with the library within a round, and CPU per request',
    },
    lookups,
    creates,
    generator,
    memory,
    targets: { lookupsVersusLibrary: { target: TARGET_LOOKUP_RATIO, measured, met } },
  });
  process.stdout.write(`wrote ${file}\n`);
}

if (isMainModule(import.meta.url)) await main();
