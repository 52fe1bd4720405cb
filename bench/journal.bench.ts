/**
 * What the order journal costs the relay, per store:
 *
 * - per create: `recordIntent` before the service call, with what the
 *   checkout is for (reference, metadata, line items, total) in the same
 *   write, plus `recordCreated` after it, which drops the customer's details
 *   (and, on SQLite, empties the write-ahead log of them 50 ms later, in
 *   the event loop's turn between creates, not timed here: the fulfilment
 *   benchmark counts it), timed one create after another (p50, p99) with the
 *   CPU this process spent on them;
 * - watching: with 10,000 orders pending, how many orders per second claims
 *   of 100 lease (claims alone), and how many the watcher gets through when
 *   each claimed order is also released with `recordChecked`; on PostgreSQL
 *   also with four journals (four pools) claiming at once.
 *
 * With `BENCH_BASELINE` naming a copy of an earlier commit (bench/baseline.ts),
 * that version's journal on each store is filled in the same turns (its
 * creates timed beside this version's), then claimed on its own.
 *
 * SQLite writes a real file with `synchronous = FULL`; PostgreSQL is a
 * throwaway cluster on loopback with its durability left on. CPU is this
 * process's, and on PostgreSQL the server's beside it (bench/postgres-cpu.ts).
 * On a shared machine, latencies move with the neighbours; CPU per create
 * moves less: each store's figures carry the load average around them.
 * The journals keep time by the bench's clock, which it moves past the leases.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type OrderDetails, openJournal } from '../src/server/index.js';
import { creationInput, lineItems } from '../test/fixtures/checkout-data.js';
import { keyOf, T0 } from '../test/fixtures/journal-contract.js';
import { startPostgres } from '../test/fixtures/postgres.js';
import { loadBaseline, type TimedJournal } from './baseline.js';
import { loadAverage, writeResults } from './lib.js';
import { postgresCpuReader } from './postgres-cpu.js';

const CREATES = 2_000;
const PENDING = 10_000;
const CLAIM_BATCH = 100;
const LEASE_MS = 30_000;

/** The journals' clock, moved by the bench, so that leases run out without waiting. */
let time = T0;
const clock = { now: () => time };

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

const round = (value: number, digits = 1) => Number(value.toFixed(digits));

/** What a checkout is for, as the relay records it with the intent: the shop's cart id as the reference. */
function detailsOf(n: number): OrderDetails {
  return {
    reference: `cart-${n}`,
    metadata: { channel: 'web' },
    lineItems,
    amount: { currency: 'ghs', value: 5_000 },
  };
}

/** The server's CPU (µs) so far, when the store has a server whose CPU can be read. */
type ServerCpu = (() => number) | undefined;

/** CPU per item: this process's, and the store's server beside it when it has one. */
function cpuPer(count: number, own: NodeJS.CpuUsage, serverMicroseconds: number | undefined) {
  return {
    cpuMicroseconds: round((own.user + own.system) / count),
    ...(serverMicroseconds === undefined ? {} : { serverCpuMicroseconds: round(serverMicroseconds / count) }),
  };
}

/** A journal being filled, with the reader of its server's CPU if it has one. */
interface Target {
  journal: TimedJournal;
  serverCpu?: ServerCpu;
}

/** One create as the relay records it: the intent with what it is for, then the service's answer. */
async function recordCreate(journal: TimedJournal, n: number): Promise<void> {
  await journal.recordIntent({
    idempotencyKey: keyOf(n),
    createBody: creationInput,
    resendInMs: 60_000,
    details: detailsOf(n),
  });
  await journal.recordCreated(keyOf(n), {
    orderId: `or_${n}`,
    paymentStatus: 'requires_action',
    nextCheckInMs: 0,
  });
}

/**
 * Records `count` creates from `first` on in each target, one target after
 * the other for each create (so the machine's load falls on all alike),
 * timing each pair of writes with this process's CPU and the server's.
 */
async function recordCreates(targets: readonly Target[], first: number, count: number) {
  const measured = targets.map(() => ({ times: [] as number[], cpuMicroseconds: 0, serverMicroseconds: 0 }));
  for (let n = first; n < first + count; n += 1) {
    time = T0 + n;
    for (const [index, { journal, serverCpu }] of targets.entries()) {
      const into = measured[index] as (typeof measured)[number];
      const serverBefore = serverCpu?.();
      const cpuBefore = process.cpuUsage();
      const start = performance.now();
      await recordCreate(journal, n);
      into.times.push((performance.now() - start) * 1000);
      const cpu = process.cpuUsage(cpuBefore);
      into.cpuMicroseconds += cpu.user + cpu.system;
      if (serverBefore !== undefined) into.serverMicroseconds += (serverCpu?.() ?? 0) - serverBefore;
      // The event loop turns between creates, as a server's does between requests: deferred work
      // (SQLite empties its log 50 ms after a customer's details were dropped) runs here, untimed.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  return measured.map(({ times, cpuMicroseconds, serverMicroseconds }, index) => {
    times.sort((a, b) => a - b);
    const elapsedMs = times.reduce((sum, time) => sum + time, 0) / 1000;
    const hasServer = targets[index]?.serverCpu !== undefined;
    return {
      creates: count,
      p50Microseconds: round(percentile(times, 0.5)),
      p99Microseconds: round(percentile(times, 0.99)),
      createsPerSecond: Math.round((count / elapsedMs) * 1000),
      perCreate: cpuPer(
        count,
        { user: cpuMicroseconds, system: 0 },
        hasServer ? serverMicroseconds : undefined,
      ),
    };
  });
}

/** Claims every pending order once, in batches, releasing each with a lookup result; orders per second. */
async function claimAll(journals: readonly TimedJournal[], now: number, serverCpu?: ServerCpu) {
  time = now;
  const serverBefore = serverCpu?.();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const counts = await Promise.all(
    journals.map(async (journal, index) => {
      const owner = `bench-relay-${index}`;
      let claimed = 0;
      for (;;) {
        const batch = await journal.claimDue(owner, { limit: CLAIM_BATCH, leaseMs: LEASE_MS });
        if (batch.length === 0) return claimed;
        claimed += batch.length;
        const result = { paymentStatus: 'requires_action', nextCheckInMs: 3_600_000 };
        for (const entry of batch) await journal.recordChecked(entry.idempotencyKey, owner, result);
      }
    }),
  );
  const elapsed = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const server = serverBefore === undefined ? undefined : (serverCpu?.() ?? serverBefore) - serverBefore;
  const total = counts.reduce((sum, count) => sum + count, 0);
  return {
    journals: journals.length,
    ordersClaimed: total,
    ordersPerSecond: Math.round((total / elapsed) * 1000),
    perOrder: cpuPer(total, cpu, server),
  };
}

/** Claims every pending order once in batches and keeps the leases (no writes between): orders per second. */
async function claimOnly(journal: TimedJournal, now: number, serverCpu?: ServerCpu) {
  time = now;
  const serverBefore = serverCpu?.();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let claimed = 0;
  for (;;) {
    const batch = await journal.claimDue('bench-claimer', { limit: CLAIM_BATCH, leaseMs: LEASE_MS });
    if (batch.length === 0) break;
    claimed += batch.length;
  }
  const elapsed = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const server = serverBefore === undefined ? undefined : (serverCpu?.() ?? serverBefore) - serverBefore;
  return {
    ordersClaimed: claimed,
    ordersPerSecond: Math.round((claimed / elapsed) * 1000),
    perOrder: cpuPer(claimed, cpu, server),
  };
}

/** One version of a store: `open` gives a journal on the same empty store each time it is called. */
interface StoreVersion {
  open: () => Promise<TimedJournal>;
  serverCpu?: ServerCpu;
}

/** With 10,000 orders pending in `journal`: claims alone, then claims with each order's lookup recorded. */
async function measureClaims(journal: TimedJournal, version: StoreVersion, claimers: number) {
  const claims: Record<string, unknown> = {
    claimOnly: await claimOnly(journal, T0 + PENDING, version.serverCpu),
    claimAndRecordCheck: await claimAll([journal], T0 + PENDING + LEASE_MS, version.serverCpu),
  };
  if (claimers > 1) {
    // Separate pools in one Node process: separate connections, as separate relay processes would have.
    const others = await Promise.all(Array.from({ length: claimers - 1 }, version.open));
    claims[`claimAndRecordCheckBy${claimers}Journals`] = await claimAll(
      [journal, ...others],
      T0 + PENDING + 3_600_000 + LEASE_MS,
      version.serverCpu,
    );
    for (const other of others) await other.close();
  }
  return claims;
}

/**
 * Every figure for one store, of this version and of the baseline's when
 * there is one: creates timed in turns, then each version's claims on its own.
 */
async function measureStore(current: StoreVersion, baseline: StoreVersion | undefined, claimers: number) {
  const loadBefore = loadAverage();
  const versions = baseline ? [current, baseline] : [current];
  const journals = await Promise.all(versions.map((version) => version.open()));
  const targets = journals.map((journal, index) => ({ journal, serverCpu: versions[index]?.serverCpu }));
  const perCreate = await recordCreates(targets, 0, CREATES);
  await recordCreates(
    journals.map((journal) => ({ journal })),
    CREATES,
    PENDING - CREATES,
  );
  // Past SQLite's 50 ms delay before it empties its log: the claims are timed without that work.
  await new Promise((resolve) => setTimeout(resolve, 100));
  const figures = [];
  for (const [index, journal] of journals.entries()) {
    const claims = await measureClaims(journal, versions[index] as StoreVersion, claimers);
    await journal.close();
    figures.push({ perCreate: perCreate[index], claimWith10000Pending: claims });
  }
  const [now, before] = figures;
  return {
    loadAverage: { before: loadBefore, after: loadAverage() },
    ...now,
    ...(before ? { baseline: before } : {}),
  };
}

const scratch = mkdtempSync(join(tmpdir(), 'pay-checkout-journal-bench-'));
const cluster = await startPostgres({ durable: true });
try {
  const baseline = await loadBaseline();
  const memory = await measureStore(
    { open: () => openJournal('memory:', { clock }) },
    baseline && { open: () => baseline.openJournal('memory:', clock) },
    1,
  );
  const sqliteFile = (name: string) => `sqlite:${join(scratch, name)}`;
  const sqlite = await measureStore(
    { open: () => openJournal(sqliteFile('journal.db'), { clock }) },
    baseline && { open: () => baseline.openJournal(sqliteFile('baseline.db'), clock) },
    1,
  );
  const postgresUrl = await cluster.createDatabase();
  const baselineUrl = baseline ? await cluster.createDatabase() : undefined;
  const postgres = await measureStore(
    { open: () => openJournal(postgresUrl, { clock }), serverCpu: await postgresCpuReader(postgresUrl) },
    baseline && baselineUrl !== undefined
      ? {
          open: () => baseline.openJournal(baselineUrl, clock),
          serverCpu: await postgresCpuReader(baselineUrl),
        }
      : undefined,
    4,
  );
  const file = await writeResults('journal', {
    settings: {
      createsTimed: CREATES,
      pendingOrders: PENDING,
      claimBatch: CLAIM_BATCH,
      sqlite: 'libsql, a file in the temp folder, WAL with synchronous = FULL',
      postgres: 'PostgreSQL 15 on loopback, fsync and synchronous_commit on, pool of 4 per journal',
      details: 'each intent carries a reference, one metadata key, one line item and the total',
      baseline: process.env.BENCH_BASELINE
        ? `baseline: the journal of the copy in ${process.env.BENCH_BASELINE}, creates timed in turns with this version's`
        : 'none (BENCH_BASELINE unset)',
      sharedMachine:
        'yes: 2 vCPUs shared with other work; each store has the load average around its figures',
      cpu: "per create or claimed order: this process's user + system time (cpuMicroseconds); on PostgreSQL the server's processes beside it (serverCpuMicroseconds, from /proc)",
    },
    memory,
    sqlite,
    postgres,
  });
  process.stdout.write(`${JSON.stringify({ memory, sqlite, postgres }, null, 2)}\nWrote ${file}\n`);
} finally {
  cluster.stop();
  rmSync(scratch, { recursive: true, force: true });
}
