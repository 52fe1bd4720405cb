/**
 * The fleet test: three relay processes on one PostgreSQL journal create and
 * watch 1,000 orders; one of them is killed with SIGKILL mid-run. The sandbox
 * runs in this process and times every lookup it answers, so the test sees
 * what the fleet did to the service: no order looked up by two processes at
 * the same moment, lookups of an order 2–5 s apart, and every order delivered
 * to `onPaid` exactly once, outside the crash window.
 *
 * Real clocks and real timers: the payer approves 7 s after the create, so
 * each order is looked up about three times; the run takes about a minute.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createSandbox, listen, toNodeListener } from '../../src/sandbox/index.js';
import { SERVICE_MAX_BODY_BYTES } from '../../src/shared/service-contract.js';
import { type RelayChild, startRelayChild } from '../fixtures/child-process.js';
import { postgresSkipReason, startPostgres } from '../fixtures/postgres.js';
import { eventually } from '../fixtures/wait.js';

const ORDERS = 1_000;
// Short, so the dead process's orders pass on within the run; a merchant's default is 30 s.
const LEASE_MS = 10_000;
const INTERVAL_MS = 3_000;

/** One lookup as the service saw it. */
interface Lookup {
  orderId: string;
  start: number;
  end: number;
}

/** The sandbox over loopback, recording when each lookup arrived and was answered. */
async function timedSandbox() {
  const sandbox = createSandbox({ approveAfterMs: 7_000 });
  const lookups: Lookup[] = [];
  const handle = async (request: Request): Promise<Response> => {
    if (!request.url.endsWith('/orders/lookup')) return sandbox.handle(request);
    const start = Date.now();
    const { order_id: orderId } = (await request.clone().json()) as { order_id: string };
    const response = await sandbox.handle(request);
    lookups.push({ orderId, start, end: Date.now() });
    return response;
  };
  const served = await listen(toNodeListener(handle, { maxBodyBytes: SERVICE_MAX_BODY_BYTES }));
  return { sandbox, lookups, served };
}

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group) group.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
}

describe('fulfilment in a fleet', { skip: postgresSkipReason() }, () => {
  it('three processes on one PostgreSQL journal deliver 1,000 orders once each, one lookup in flight per order, 2–5 s apart', {
    timeout: 600_000,
  }, async (t) => {
    const cluster = await startPostgres();
    after(() => cluster.stop());
    const journalUrl = await cluster.createDatabase();
    const { sandbox, lookups, served } = await timedSandbox();
    after(() => served.close());
    const scratch = mkdtempSync(join(tmpdir(), 'pay-checkout-fleet-'));
    after(() => rmSync(scratch, { recursive: true, force: true }));
    const deliveriesFile = join(scratch, 'deliveries.txt');
    writeFileSync(deliveriesFile, '');
    const base = { journalUrl, baseUrl: served.url, deliveriesFile, watch: { leaseMs: LEASE_MS } };
    // The process killed creates a third of the orders first, then watches until it dies.
    const shares = [
      { from: 0, to: 299, everyMs: 40 },
      { from: 300, to: 649, everyMs: 90 },
      { from: 650, to: 999, everyMs: 90 },
    ];
    const children: RelayChild[] = shares.map((orders, index) =>
      startRelayChild({ ...base, name: `fleet-${index}`, orders, until: 'stdin' }),
    );
    after(async () => {
      for (const child of children) await child.kill();
    });
    const doomed = children[0] as RelayChild;
    assert.ok(await doomed.waitFor('created-all', 120_000), 'the first process created its orders');
    // Killed mid-watch: once it has recorded deliveries since its last create, it holds leases too.
    const createdAll = doomed.lines.indexOf('created-all');
    await eventually(
      'the first process to deliver orders after its creates',
      () => doomed.lines.slice(createdAll).filter((line) => line.startsWith('marked ')).length >= 10,
      { timeoutMs: 120_000, intervalMs: 50 },
    );
    const killedAt = Date.now();
    await doomed.kill();
    // A lookup the process sent before it died may reach this process's sandbox after the signal,
    // and after its exit is seen, while this process serves the others: its order waits out the
    // dead process's lease. Such a lookup begins within a second of the exit.
    const diedAt = Date.now() + 1_000;

    const deliveries = () =>
      readFileSync(deliveriesFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const [name, orderId, at] = line.split(' ');
          return { name: name as string, orderId: orderId as string, at: Number(at) };
        });
    const undelivered = await eventually(
      'every order to be delivered',
      () => new Set(deliveries().map((d) => d.orderId)).size >= ORDERS,
      { timeoutMs: 240_000, intervalMs: 250 },
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    for (const child of children.slice(1)) child.process.stdin?.write('stop\n');
    await Promise.all(children.slice(1).map((child) => child.waitFor('closed', 30_000)));
    assert.ifError(undelivered);

    // Exactly once, outside the crash window: a second delivery only of an order whose callback
    // the dead process had called and whose delivery it had not yet recorded when it was killed.
    const lines = deliveries();
    const byOrder = groupBy(lines, (line) => line.orderId);
    const doubles = [...byOrder.values()].filter((group) => group.length > 1);
    const recordedByTheDead = new Set(
      doomed.lines.filter((line) => /^(marked|lost) /.test(line)).map((line) => line.split(' ')[1]),
    );
    for (const group of doubles) {
      const orderId = group[0]?.orderId as string;
      const byTheDead = group.filter((line) => line.name === 'fleet-0');
      assert.ok(
        group.length === 2 && byTheDead.length === 1 && !recordedByTheDead.has(orderId),
        `order ${orderId} was delivered ${group.length} times outside the crash window: ${group
          .map((line) => `${line.name} ${line.at - killedAt} ms from the kill`)
          .join(
            ', ',
          )}${recordedByTheDead.has(orderId) ? '; the dead process had recorded its delivery' : ''}`,
      );
    }
    const leasesLost = children.flatMap((child) => child.lines.filter((line) => line.startsWith('lost ')));
    assert.equal(byOrder.size, ORDERS);
    assert.equal(sandbox.createdOrderCount, ORDERS, 'each order created once');

    // One lookup in flight per order: each starts after the previous one was answered.
    const perOrder = groupBy(lookups, (lookup) => lookup.orderId);
    let overlaps = 0;
    const gaps: number[] = [];
    const crashGaps: number[] = [];
    for (const series of perOrder.values()) {
      series.sort((a, b) => a.start - b.start);
      for (let i = 1; i < series.length; i++) {
        const previous = series[i - 1] as Lookup;
        const current = series[i] as Lookup;
        if (current.start < previous.end) overlaps += 1;
        // A lease the dead process held delays its orders by up to a lease: the crash window.
        if (previous.start <= diedAt && current.start >= killedAt)
          crashGaps.push(current.start - previous.start);
        else gaps.push(current.start - previous.start);
      }
    }
    gaps.sort((a, b) => a - b);
    const inRhythm = gaps.filter((gap) => gap >= 2_000 && gap <= 5_000).length;
    t.diagnostic(
      `lookups ${lookups.length} of ${perOrder.size} orders; in flight twice at once: ${overlaps}; gaps p1 ${percentile(gaps, 1)} ms, p50 ${percentile(gaps, 50)} ms, p99 ${percentile(gaps, 99)} ms, max ${gaps.at(-1)} ms; ${((inRhythm / gaps.length) * 100).toFixed(1)}% within 2–5 s; ${crashGaps.length} gaps across the kill left out (longest ${Math.max(...crashGaps)} ms); double deliveries ${doubles.length}; deliveries given up on a lost lease ${leasesLost.length}`,
    );
    assert.equal(overlaps, 0, 'no order looked up by two processes at once');
    // The dead process's orders pass to the others within one lease (and the interval after it).
    assert.ok(
      Math.max(...crashGaps) <= LEASE_MS + 5_000 + INTERVAL_MS,
      'orders of the dead process passed on',
    );
    assert.ok((gaps[0] ?? 0) >= 2_000, `the shortest gap is ${gaps[0]} ms`);
    assert.ok(inRhythm / gaps.length >= 0.95, 'lookups of an order 2–5 s apart');
    // Generous: a loaded machine may stretch a tick, never by more than an interval.
    assert.ok((gaps.at(-1) ?? 0) <= 5_000 + INTERVAL_MS, `the longest gap is ${gaps.at(-1)} ms`);
  });
});
