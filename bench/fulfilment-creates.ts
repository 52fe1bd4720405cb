/**
 * The create latency a journal adds, for the fulfilment benchmark:
 * `relay.create` against an in-process sandbox whose payer never answers,
 * through a relay without a journal, one on an SQLite file and one on
 * PostgreSQL (and the same three of a baseline version, bench/baseline.ts),
 * `BLOCK` creates through one relay and then the next, so the machine's load
 * falls on all alike. `priceCart` answers as the example shop's does, so the
 * journal writes what the checkout is for with the intent.
 */
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createSandbox } from '../src/sandbox/index.js';
import { type CheckoutRelay, createCheckoutRelay, type Journal, openJournal } from '../src/server/node.js';
import type { PostgresCluster } from '../test/fixtures/postgres.js';
import { createRequest, createTestRelay, intent, priceCart } from '../test/fixtures/relay.js';
import { mountSandbox, sandboxFetch } from '../test/fixtures/sandbox.js';
import type { Baseline, TimedRelay } from './baseline.js';
import { loadAverage } from './lib.js';
import { postgresCpuReader } from './postgres-cpu.js';

/** Creates timed through each relay. */
export const CREATES = Number(process.env.BENCH_CREATES ?? 1_000);

const round = (value: number, digits = 2) => Number(value.toFixed(digits));

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

/** The example shop's pricing: the test catalogue's line items, the cart's id as the reference. */
export function priceShopCart(cart: unknown) {
  const { id } = cart as { id: string };
  return { lineItems: priceCart(cart), reference: id, metadata: { channel: 'web' } };
}

let carts = 0;

/** A create's body as the example shop's page sends it: a cart with an id of its own. */
function shopIntent(): Record<string, unknown> {
  carts += 1;
  return intent({ cart: { id: `cart-${carts}`, items: [{ sku: 'tote', quantity: 2 }] } });
}

/** Creates through one relay before the next relay's turn. */
const BLOCK = 20;
/** Quiet time closing a turn, past the SQLite journal's 50 ms delay before it empties its log: that work lands in its own relay's turn. */
const SETTLE_MS = 60;

/** Lets the event loop turn, as a server's does between requests: timers that are due run now. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A relay in the create run, with its latencies (ms), this process's CPU and its database server's. */
interface TimedCreates {
  relay: TimedRelay;
  times: number[];
  cpuMicroseconds: number;
  /** Reads the relay's PostgreSQL server's CPU (µs so far), around each of this relay's turns. */
  serverCpu?: (() => number) | undefined;
  serverCpuMicroseconds: number;
  /** The longest event-loop delay of each turn (ms): a create's own work, or deferred work such as a log checkpoint. */
  longestStalls: number[];
}

/**
 * One turn of `BLOCK` creates through `into.relay`, the event loop turning
 * between them, then `SETTLE_MS` for its deferred work: the turn's CPU and
 * longest stall are this relay's, each create's latency its own.
 */
async function timeTurn(into: TimedCreates): Promise<void> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const serverBefore = into.serverCpu?.();
  const cpuBefore = process.cpuUsage();
  for (let index = 0; index < BLOCK; index++) {
    const start = performance.now();
    const response = await into.relay.create(createRequest(shopIntent()));
    await response.arrayBuffer();
    into.times.push(performance.now() - start);
    if (response.status !== 200) throw new Error(`create answered ${response.status}`);
    await turn();
  }
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const cpu = process.cpuUsage(cpuBefore);
  into.cpuMicroseconds += cpu.user + cpu.system;
  if (serverBefore !== undefined) into.serverCpuMicroseconds += (into.serverCpu?.() ?? 0) - serverBefore;
  delay.disable();
  into.longestStalls.push(delay.max / 1e6);
}

function summary({ times, cpuMicroseconds, serverCpu, serverCpuMicroseconds, longestStalls }: TimedCreates) {
  const sorted = [...times].sort((a, b) => a - b);
  const stalls = [...longestStalls].sort((a, b) => a - b);
  return {
    p50Ms: round(percentile(sorted, 0.5), 3),
    p99Ms: round(percentile(sorted, 0.99), 3),
    cpuMicrosecondsPerCreate: Math.round(cpuMicroseconds / times.length),
    ...(serverCpu
      ? { postgresServerCpuMicrosecondsPerCreate: Math.round(serverCpuMicroseconds / times.length) }
      : {}),
    longestEventLoopStallMs: {
      medianOfTurns: round(percentile(stalls, 0.5), 1),
      max: round(stalls.at(-1) ?? 0, 1),
    },
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
      priceCart: priceShopCart,
      ...(journal ? { journal, onPaid: () => undefined, watch: { ticks: false } } : {}),
    },
    createCheckoutRelay,
  );
}

/** The relays of one version: without a journal, on an SQLite file, on a PostgreSQL database of its own. */
interface VersionRelays {
  withoutJournal: TimedRelay;
  sqlite: TimedRelay;
  postgres: TimedRelay;
}

/** This version's three relays, and the baseline's when `BENCH_BASELINE` names one (bench/baseline.ts). */
async function versionRelays(scratch: string, cluster: PostgresCluster, baseline: Baseline | undefined) {
  const postgresUrl = await cluster.createDatabase();
  const versions: Record<string, { relays: VersionRelays; postgresUrl: string }> = {
    current: {
      postgresUrl,
      relays: {
        withoutJournal: createRelay(),
        sqlite: createRelay(await openJournal(`sqlite:${join(scratch, 'creates.db')}`)),
        postgres: createRelay(await openJournal(postgresUrl)),
      },
    },
  };
  if (baseline) {
    const baselineUrl = await cluster.createDatabase();
    versions.baseline = {
      postgresUrl: baselineUrl,
      relays: {
        withoutJournal: await baseline.createRelay(),
        sqlite: await baseline.createRelay(`sqlite:${join(scratch, 'baseline-creates.db')}`),
        postgres: await baseline.createRelay(baselineUrl),
      },
    };
  }
  return versions;
}

/**
 * `CREATES` creates through each relay (one without a journal, one on SQLite,
 * one on PostgreSQL, and the same of the baseline version), in turns of
 * `BLOCK`, so a neighbour's burst of load falls on all alike.
 */
export async function measureCreates(
  scratch: string,
  cluster: PostgresCluster,
  baseline: Baseline | undefined,
) {
  const loadBefore = loadAverage();
  const versions = await versionRelays(scratch, cluster, baseline);
  const timed: TimedCreates[] = [];
  const timedOf: Record<string, Record<keyof VersionRelays, TimedCreates>> = {};
  for (const [version, { relays, postgresUrl }] of Object.entries(versions)) {
    const fresh = (relay: TimedRelay, serverCpu?: () => number): TimedCreates => {
      const entry = {
        relay,
        times: [],
        cpuMicroseconds: 0,
        serverCpu,
        serverCpuMicroseconds: 0,
        longestStalls: [],
      };
      timed.push(entry);
      return entry;
    };
    timedOf[version] = {
      withoutJournal: fresh(relays.withoutJournal),
      sqlite: fresh(relays.sqlite),
      postgres: fresh(relays.postgres, await postgresCpuReader(postgresUrl)),
    };
  }
  for (let i = 0; i < 50; i++) for (const { relay } of timed) await relay.create(createRequest(shopIntent()));
  for (let i = 0; i < CREATES / BLOCK; i++) for (const entry of timed) await timeTurn(entry);
  for (const { relay } of timed) await relay.close();
  const figures = Object.fromEntries(
    Object.entries(timedOf).map(([version, relays]) => {
      const without = summary(relays.withoutJournal);
      const sqlite = summary(relays.sqlite);
      const postgres = summary(relays.postgres);
      const added = (store: ReturnType<typeof summary>) => ({
        p50Ms: round(store.p50Ms - without.p50Ms, 3),
        p99Ms: round(store.p99Ms - without.p99Ms, 3),
        cpuMicrosecondsPerCreate: store.cpuMicrosecondsPerCreate - without.cpuMicrosecondsPerCreate,
      });
      const all = {
        withoutJournal: without,
        sqlite,
        postgres,
        addedBySqlite: added(sqlite),
        addedByPostgres: added(postgres),
      };
      return [version, all];
    }),
  );
  return {
    loadAverage: { before: loadBefore, after: loadAverage() },
    creates: CREATES,
    order: `in turns: ${BLOCK} creates through one relay (the event loop turning between them) and ${SETTLE_MS} ms for its deferred work, then the next relay`,
    cpu: 'per create: the turn’s CPU over its creates, deferred work (the SQLite log’s checkpoint) included',
    ...figures.current,
    ...(baseline ? { baseline: { folder: baseline.folder, ...figures.baseline } } : {}),
  };
}
