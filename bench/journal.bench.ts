/**
 * What the order journal costs the relay (contract §6), per store:
 *
 * - per create: `recordIntent` before the service call plus `recordCreated`
 *   after it, timed one create after another (p50, p99) with the CPU this
 *   process spent on them;
 * - watching: with 10,000 orders pending, how many orders per second claims
 *   of 100 lease (claims alone), and how many the watcher gets through when
 *   each claimed order is also released with `recordChecked`; on PostgreSQL
 *   also with four journals (four pools) claiming at once.
 *
 * SQLite writes a real file with `synchronous = FULL`; PostgreSQL is a
 * throwaway cluster on loopback with its durability left on. The CPU figure
 * is this process's only (PostgreSQL's server work is not in it). On a shared
 * machine, latencies move with the neighbours; CPU per create moves less.
 * The journals keep time by the bench's clock, which it moves past the leases.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Journal, openJournal } from '../src/server/index.js';
import { creationInput } from '../test/fixtures/checkout-data.js';
import { keyOf, T0 } from '../test/fixtures/journal-contract.js';
import { startPostgres } from '../test/fixtures/postgres.js';
import { writeResults } from './lib.js';

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

/** Records `count` creates from `first` on, as the relay does, timing each pair of writes. */
async function recordCreates(journal: Journal, first: number, count: number) {
  const times: number[] = [];
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  for (let n = first; n < first + count; n += 1) {
    time = T0 + n;
    const start = performance.now();
    await journal.recordIntent({ idempotencyKey: keyOf(n), createBody: creationInput, resendInMs: 60_000 });
    await journal.recordCreated(keyOf(n), {
      orderId: `or_${n}`,
      paymentStatus: 'requires_action',
      nextCheckInMs: 0,
    });
    times.push((performance.now() - start) * 1000);
  }
  const elapsed = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  times.sort((a, b) => a - b);
  return {
    creates: count,
    p50Microseconds: round(percentile(times, 0.5)),
    p99Microseconds: round(percentile(times, 0.99)),
    createsPerSecond: Math.round((count / elapsed) * 1000),
    cpuMicrosecondsPerCreate: round((cpu.user + cpu.system) / count),
  };
}

/** Claims every pending order once, in batches, releasing each with a lookup result; orders per second. */
async function claimAll(journals: readonly Journal[], now: number) {
  time = now;
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
  const total = counts.reduce((sum, count) => sum + count, 0);
  return {
    journals: journals.length,
    ordersClaimed: total,
    ordersPerSecond: Math.round((total / elapsed) * 1000),
  };
}

/** Claims every pending order once in batches and keeps the leases (no writes between): orders per second. */
async function claimOnly(journal: Journal, now: number) {
  time = now;
  const started = performance.now();
  let claimed = 0;
  for (;;) {
    const batch = await journal.claimDue('bench-claimer', { limit: CLAIM_BATCH, leaseMs: LEASE_MS });
    if (batch.length === 0) break;
    claimed += batch.length;
  }
  const elapsed = performance.now() - started;
  return { ordersClaimed: claimed, ordersPerSecond: Math.round((claimed / elapsed) * 1000) };
}

/** Every figure for one store: `open` gives a journal on the same empty store each time it is called. */
async function measureStore(open: () => Promise<Journal>, claimers: number) {
  const journal = await open();
  const perCreate = await recordCreates(journal, 0, CREATES);
  await recordCreates(journal, CREATES, PENDING - CREATES);
  const claims: Record<string, unknown> = {
    claimOnly: await claimOnly(journal, T0 + PENDING),
    claimAndRecordCheck: await claimAll([journal], T0 + PENDING + LEASE_MS),
  };
  if (claimers > 1) {
    // Separate pools in one Node process: separate connections, as separate relay processes would have.
    const others = await Promise.all(Array.from({ length: claimers - 1 }, open));
    claims[`claimAndRecordCheckBy${claimers}Journals`] = await claimAll(
      [journal, ...others],
      T0 + PENDING + 3_600_000 + LEASE_MS,
    );
    for (const other of others) await other.close();
  }
  await journal.close();
  return { perCreate, claimWith10000Pending: claims };
}

const scratch = mkdtempSync(join(tmpdir(), 'pay-checkout-journal-bench-'));
const cluster = await startPostgres({ durable: true });
try {
  const memory = await measureStore(() => openJournal('memory:', { clock }), 1);
  const sqlite = await measureStore(() => openJournal(`sqlite:${join(scratch, 'journal.db')}`, { clock }), 1);
  const postgresUrl = await cluster.createDatabase();
  const postgres = await measureStore(() => openJournal(postgresUrl, { clock }), 4);
  const file = await writeResults('journal', {
    settings: {
      createsTimed: CREATES,
      pendingOrders: PENDING,
      claimBatch: CLAIM_BATCH,
      sqlite: 'libsql, a file in the temp folder, WAL with synchronous = FULL',
      postgres: 'PostgreSQL 15 on loopback, fsync and synchronous_commit on, pool of 4 per journal',
      sharedMachine: 'yes: other work (browser tests) ran at the same time; latencies vary with it',
      cpu: "this process's user + system time; PostgreSQL's server CPU is not counted",
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
