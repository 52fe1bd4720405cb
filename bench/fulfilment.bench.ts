/**
 * What fulfilment costs the relay:
 *
 * - **create latency the journal adds** (bench/fulfilment-creates.ts):
 *   `relay.create` one after another against an in-process sandbox, without
 *   a journal, with an SQLite file and with PostgreSQL (durable, loopback),
 *   in the same run (p50, p99), 20 creates through each in turn so the
 *   machine's load falls on all alike, with the CPU of each turn and its
 *   longest event-loop stall (SQLite empties its log 50 ms after a create
 *   dropped a customer's details); with `BENCH_BASELINE` naming a copy of an
 *   earlier commit (bench/baseline.ts), that version's three relays are timed
 *   in the same turns, so a before and an after share the machine's load;
 * - **watching 10,000 pending orders** in one process: the sandbox in a child
 *   process holds 10,000 orders its payer never answers, the journal (an
 *   SQLite file) holds them as the relay would have, and the relay's own
 *   timers run the watcher for `BENCH_WATCH_SECONDS` (default 30): lookups per
 *   second against the ideal of one per order per interval, this process's
 *   CPU per lookup and per 1,000 watched orders, the sandbox's CPU per
 *   lookup, and memory; then the same on a journal in memory, to tell the
 *   journal's share from the relay's;
 * - **a never-settling order over its life** (bench/never-settling.ts): the
 *   service lookups the watcher makes of an order whose payer never
 *   answers, in the approval window and after it, until `onExpired`.
 *
 * The machine (2 cores) is shared with other work: latencies and rates move
 * with it, CPU per create or lookup moves less; each part carries the load
 * average before and after it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandbox } from '../src/sandbox/index.js';
import { listen, toNodeListener } from '../src/server/index.js';
import { createCheckoutRelay, type Journal, openJournal } from '../src/server/node.js';
import { SERVICE_MAX_BODY_BYTES } from '../src/shared/service-contract.js';
import { creationInput } from '../test/fixtures/checkout-data.js';
import { startPostgres } from '../test/fixtures/postgres.js';
import { createTestRelay } from '../test/fixtures/relay.js';
import { loadBaseline } from './baseline.js';
import { CREATES, measureCreates, priceShopCart } from './fulfilment-creates.js';
import { isMainModule, loadAverage, type StartedServer, startServerInChild, writeResults } from './lib.js';
import { measureNeverSettling } from './never-settling.js';

const PENDING = 10_000;
const WATCH_SECONDS = Number(process.env.BENCH_WATCH_SECONDS ?? 30);
const INTERVAL_MS = 3_000;

const round = (value: number, digits = 2) => Number(value.toFixed(digits));

/** Child process: a sandbox holding `orders` orders whose payer never answers; their ids in `info`. */
export async function serveWatchedSandbox({ orders }: { orders: number }): Promise<StartedServer<string[]>> {
  const sandbox = createSandbox({ approveAfterMs: 24 * 3_600_000 });
  const ids = sandbox.seedOrders(orders, creationInput);
  const running = await listen(toNodeListener(sandbox.handle, { maxBodyBytes: SERVICE_MAX_BODY_BYTES }));
  return { url: running.url, info: ids, close: running.close };
}

/** Fills `journal` with `ids` as watched orders, as the relay's creates would have. */
async function recordPending(journal: Journal, ids: readonly string[]) {
  for (const [index, orderId] of ids.entries()) {
    const idempotencyKey = `bench-watch-${String(index).padStart(6, '0')}-0123456789`;
    const details = priceShopCart({ id: `cart-${index}`, items: [{ sku: 'tote', quantity: 2 }] });
    await journal.recordIntent({
      idempotencyKey,
      createBody: creationInput,
      resendInMs: 60_000,
      details: { ...details, amount: { currency: 'ghs', value: 25_000 } },
    });
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
    const loadBefore = loadAverage();
    const memoryBefore = process.memoryUsage();
    const sandboxCpuBefore = await sandbox.cpuMicroseconds();
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
    const sandboxCpu = (await sandbox.cpuMicroseconds()) - sandboxCpuBefore;
    clearInterval(sampler);
    const memoryAfter = process.memoryUsage();
    await relay.close();
    const cpuSecondsPerSecond = (cpu.user + cpu.system) / 1e6 / elapsedSeconds;
    const ideal = PENDING / (INTERVAL_MS / 1000);
    return {
      loadAverage: { before: loadBefore, after: loadAverage() },
      pendingOrders: PENDING,
      intervalMs: INTERVAL_MS,
      seconds: round(elapsedSeconds, 1),
      lookupsPerSecond: Math.round(lookupsAtEnd / elapsedSeconds),
      idealLookupsPerSecond: Math.round(ideal),
      shareOfIdeal: round(lookupsAtEnd / elapsedSeconds / ideal, 3),
      cpuCoresUsed: round(cpuSecondsPerSecond, 3),
      cpuMillisecondsPerSecondPer1000Orders: round((cpuSecondsPerSecond * 1000) / (PENDING / 1000), 1),
      cpuMicrosecondsPerLookup: Math.round((cpu.user + cpu.system) / lookupsAtEnd),
      sandboxCpuMicrosecondsPerLookup: Math.round(sandboxCpu / lookupsAtEnd),
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
    const createLatency = await measureCreates(scratch, cluster, await loadBaseline());
    process.stdout.write(`${JSON.stringify(createLatency, null, 2)}\n`);
    const watching = await measureWatching(`sqlite:${join(scratch, 'watch.db')}`, WATCH_SECONDS);
    // The same on a journal in memory: what is left is the relay, its transport and the sandbox.
    const watchingWithMemoryJournal = await measureWatching('memory:', WATCH_SECONDS / 2);
    const neverSettlingOrder = await measureNeverSettling();
    const file = await writeResults('fulfilment', {
      settings: {
        createsTimed: CREATES,
        createSandbox: 'in process (no network): the figures are the relay and its journal only',
        sqlite: 'libsql, a file in the temp folder, WAL with synchronous = FULL',
        postgres: 'PostgreSQL 15 on loopback, fsync and synchronous_commit on',
        watchedSandbox: 'a child process on loopback; the relay calls it through undici',
        watchedJournal: 'sqlite',
        priceCart: 'the cart’s id as the reference, one metadata key, the catalogue’s line items',
        sharedMachine:
          'yes: 2 vCPUs shared with other work at the same time; each part carries the load average before and after it',
        cpu: "this process's user + system time (relay, watcher, SQLite); the sandbox's and PostgreSQL's server CPU beside it where named",
      },
      createLatency,
      watching,
      watchingWithMemoryJournal,
      neverSettlingOrder,
    });
    process.stdout.write(
      `${JSON.stringify({ watching, watchingWithMemoryJournal, neverSettlingOrder }, null, 2)}\nWrote ${file}\n`,
    );
  } finally {
    cluster.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (isMainModule(import.meta.url)) await main();
