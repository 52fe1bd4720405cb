/**
 * What fulfilment (contract §6) costs the relay:
 *
 * - **create latency the journal adds**: `relay.create` one after another
 *   against an in-process sandbox, without a journal, with an SQLite file and
 *   with PostgreSQL (durable, loopback), in the same run (p50, p99), one
 *   create through each in turn so the machine's load falls on all alike;
 * - **watching 10,000 pending orders** in one process: the sandbox in a child
 *   process holds 10,000 orders its payer never answers, the journal (an
 *   SQLite file) holds them as the relay would have, and the relay's own
 *   timers run the watcher for `BENCH_WATCH_SECONDS` (default 30): lookups per
 *   second against the ideal of one per order per interval, this process's
 *   CPU per 1,000 watched orders, and its memory; then the same on a journal
 *   in memory, to tell the journal's share from the relay's.
 *
 * The machine is shared with other engineers' tests: latencies and rates
 * move with them; CPU per order moves less.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandbox } from '../src/sandbox/index.js';
import { listen, toNodeListener } from '../src/server/index.js';
import { type CheckoutRelay, createCheckoutRelay, type Journal, openJournal } from '../src/server/node.js';
import { SERVICE_MAX_BODY_BYTES } from '../src/shared/service-contract.js';
import { creationInput } from '../test/fixtures/checkout-data.js';
import { startPostgres } from '../test/fixtures/postgres.js';
import { createRequest, createTestRelay, intent } from '../test/fixtures/relay.js';
import { mountSandbox, sandboxFetch } from '../test/fixtures/sandbox.js';
import { isMainModule, type StartedServer, startServerInChild, writeResults } from './lib.js';

const CREATES = Number(process.env.BENCH_CREATES ?? 1_000);
const PENDING = 10_000;
const WATCH_SECONDS = Number(process.env.BENCH_WATCH_SECONDS ?? 30);
const INTERVAL_MS = 3_000;

const round = (value: number, digits = 2) => Number(value.toFixed(digits));

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

/** Child process: a sandbox holding `orders` orders whose payer never answers; their ids in `info`. */
export async function serveWatchedSandbox({ orders }: { orders: number }): Promise<StartedServer<string[]>> {
  const sandbox = createSandbox({ approveAfterMs: 24 * 3_600_000 });
  const ids = sandbox.seedOrders(orders, creationInput);
  const running = await listen(toNodeListener(sandbox.handle, { maxBodyBytes: SERVICE_MAX_BODY_BYTES }));
  return { url: running.url, info: ids, close: running.close };
}

/** Latencies (ms) and CPU of one relay's creates. */
interface CreateTimes {
  times: number[];
  cpuMicroseconds: number;
}

/** One create through `relay`, timed into `into`. */
async function timeCreate(relay: CheckoutRelay, into: CreateTimes): Promise<void> {
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  const response = await relay.create(createRequest(intent()));
  await response.arrayBuffer();
  into.times.push(performance.now() - start);
  const cpu = process.cpuUsage(cpuBefore);
  into.cpuMicroseconds += cpu.user + cpu.system;
  if (response.status !== 200) throw new Error(`create answered ${response.status}`);
}

function summary({ times, cpuMicroseconds }: CreateTimes) {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    p50Ms: round(percentile(sorted, 0.5), 3),
    p99Ms: round(percentile(sorted, 0.99), 3),
    cpuMicrosecondsPerCreate: Math.round(cpuMicroseconds / times.length),
  };
}

/** A relay on an in-process sandbox whose payer never answers, with `journal` (or none), not watching. */
function createRelay(journal?: Journal): CheckoutRelay {
  const url = mountSandbox(createSandbox({ approveAfterMs: 24 * 3_600_000 }));
  return createTestRelay(
    {
      baseUrl: url,
      fetch: sandboxFetch,
      rateLimit: false,
      ...(journal ? { journal, onPaid: () => undefined, watch: { ticks: false } } : {}),
    },
    createCheckoutRelay,
  );
}

/**
 * `CREATES` creates through each relay, taken in turn (one without a journal,
 * one on SQLite, one on PostgreSQL), so a neighbour's burst of load falls on
 * all three alike.
 */
async function measureCreates(scratch: string, postgresUrl: string) {
  const relays = {
    withoutJournal: createRelay(),
    sqlite: createRelay(await openJournal(`sqlite:${join(scratch, 'creates.db')}`)),
    postgres: createRelay(await openJournal(postgresUrl)),
  };
  const names = Object.keys(relays) as (keyof typeof relays)[];
  const fresh = (): CreateTimes => ({ times: [], cpuMicroseconds: 0 });
  const measured = { withoutJournal: fresh(), sqlite: fresh(), postgres: fresh() };
  for (let i = 0; i < 50; i++) for (const name of names) await relays[name].create(createRequest(intent()));
  for (let i = 0; i < CREATES; i++) for (const name of names) await timeCreate(relays[name], measured[name]);
  for (const name of names) await relays[name].close();
  const [without, sqlite, postgres] = names.map((name) => summary(measured[name]));
  const added = (store: ReturnType<typeof summary>) => ({
    p50Ms: round(store.p50Ms - (without?.p50Ms ?? 0), 3),
    p99Ms: round(store.p99Ms - (without?.p99Ms ?? 0), 3),
  });
  return {
    creates: CREATES,
    order: 'interleaved: one create through each relay in turn',
    withoutJournal: without,
    sqlite,
    postgres,
    addedBySqlite: sqlite && added(sqlite),
    addedByPostgres: postgres && added(postgres),
  };
}

/** Fills `journal` with `ids` as watched orders, as the relay's creates would have. */
async function recordPending(journal: Journal, ids: readonly string[]) {
  for (const [index, orderId] of ids.entries()) {
    const idempotencyKey = `bench-watch-${String(index).padStart(6, '0')}-0123456789`;
    await journal.recordIntent({ idempotencyKey, createBody: creationInput, resendInMs: 60_000 });
    // Spread over one interval, as orders created over time would be.
    const nextCheckInMs = Math.floor((index / ids.length) * INTERVAL_MS);
    await journal.recordCreated(idempotencyKey, { orderId, paymentStatus: 'requires_action', nextCheckInMs });
  }
}

async function measureWatching(journalUrl: string, seconds: number) {
  const sandbox = await startServerInChild<string[]>(new URL(import.meta.url), 'serveWatchedSandbox', {
    orders: PENDING,
  });
  try {
    const journal = await openJournal(journalUrl);
    await recordPending(journal, sandbox.info);
    let lookups = 0;
    const recordChecked = journal.recordChecked.bind(journal);
    journal.recordChecked = (...args) => {
      lookups += 1;
      return recordChecked(...args);
    };
    globalThis.gc?.();
    const memoryBefore = process.memoryUsage();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    // The Node entry's transport (undici) over loopback, the relay's own timers: as in production.
    const relay = createTestRelay(
      { baseUrl: sandbox.url, journal, onPaid: () => undefined, watch: { intervalMs: INTERVAL_MS } },
      createCheckoutRelay,
    );
    let peakRss = 0;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }, 250);
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const lookupsAtEnd = lookups;
    const elapsedSeconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    clearInterval(sampler);
    const memoryAfter = process.memoryUsage();
    await relay.close();
    const cpuSecondsPerSecond = (cpu.user + cpu.system) / 1e6 / elapsedSeconds;
    const ideal = PENDING / (INTERVAL_MS / 1000);
    return {
      pendingOrders: PENDING,
      intervalMs: INTERVAL_MS,
      seconds: round(elapsedSeconds, 1),
      lookupsPerSecond: Math.round(lookupsAtEnd / elapsedSeconds),
      idealLookupsPerSecond: Math.round(ideal),
      shareOfIdeal: round(lookupsAtEnd / elapsedSeconds / ideal, 3),
      cpuCoresUsed: round(cpuSecondsPerSecond, 3),
      cpuMillisecondsPerSecondPer1000Orders: round((cpuSecondsPerSecond * 1000) / (PENDING / 1000), 1),
      cpuMicrosecondsPerLookup: Math.round((cpu.user + cpu.system) / lookupsAtEnd),
      heapUsedMiB: round(memoryAfter.heapUsed / 2 ** 20, 1),
      heapGrowthMiB: round((memoryAfter.heapUsed - memoryBefore.heapUsed) / 2 ** 20, 1),
      peakRssMiB: round(peakRss / 2 ** 20, 1),
    };
  } finally {
    await sandbox.close();
  }
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'pay-checkout-fulfilment-bench-'));
  const cluster = await startPostgres({ durable: true });
  try {
    const createLatency = await measureCreates(scratch, await cluster.createDatabase());
    process.stdout.write(`${JSON.stringify(createLatency, null, 2)}\n`);
    const watching = await measureWatching(`sqlite:${join(scratch, 'watch.db')}`, WATCH_SECONDS);
    // The same on a journal in memory: what is left is the relay, its transport and the sandbox.
    const watchingWithMemoryJournal = await measureWatching('memory:', WATCH_SECONDS / 2);
    const file = await writeResults('fulfilment', {
      settings: {
        createsTimed: CREATES,
        createSandbox: 'in process (no network): the figures are the relay and its journal only',
        sqlite: 'libsql, a file in the temp folder, WAL with synchronous = FULL',
        postgres: 'PostgreSQL 15 on loopback, fsync and synchronous_commit on',
        watchedSandbox: 'a child process on loopback; the relay calls it through undici',
        watchedJournal: 'sqlite',
        sharedMachine:
          'yes: 2 vCPUs shared with other engineers’ test runs at the same time; rates and latencies vary with them',
        cpu: "this process's user + system time (relay, watcher, SQLite); the sandbox's and PostgreSQL's are not counted",
      },
      createLatency,
      watching,
      watchingWithMemoryJournal,
    });
    process.stdout.write(
      `${JSON.stringify({ watching, watchingWithMemoryJournal }, null, 2)}\nWrote ${file}\n`,
    );
  } finally {
    cluster.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (isMainModule(import.meta.url)) await main();
