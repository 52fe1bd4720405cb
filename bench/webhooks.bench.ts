/**
 * What webhook delivery costs and how it behaves under a backlog, the relay
 * (Node entry) on a real SQLite journal (`synchronous = FULL`) sending to a
 * plain `node:http` receiver in a child process that verifies every request
 * with `verifyWebhook` and counts the requests it holds at once:
 *
 * - **deliveries per second** and CPU per delivery (the relay's process and
 *   the receiver's), with the journal's growth in bytes per 1,000 events
 *   (the SQLite file and its write-ahead log before and after the events are
 *   journalled, and after they are delivered);
 * - **a backlog after an outage**: 10,000 events journalled while the
 *   receiver answers `503` (down behind its load balancer); each first
 *   attempt fails. The relay's clock then moves on an hour (no real waiting),
 *   the receiver comes back, and every event is due at once: the rate at
 *   which they are delivered, and the peak of requests the receiver held at
 *   once, against the bound (`MAX_SENDS_PER_ENDPOINT` sends in flight per
 *   endpoint), with no event received twice.
 *
 * Events are journalled as the webhook target does it for settled orders
 * (`webhookEventOf`, then `recordWebhookEvents`), without running payments
 * through the sandbox: what is measured is delivery, not settlement. The
 * machine (2 cores) is shared: rates move with the load average written
 * beside them; CPU per delivery moves less.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_SENDS_PER_ENDPOINT } from '../src/server/fulfilment/webhooks/webhook-dispatcher.js';
import { webhookEventOf } from '../src/server/fulfilment/webhooks/webhook-event.js';
import { type Journal, openJournal, verifyWebhook } from '../src/server/index.js';
import { createCheckoutRelay } from '../src/server/node.js';
import { systemClock } from '../src/shared/clock.js';
import { createTestRelay, inProcessSandbox, priceCart } from '../test/fixtures/relay.js';
import { isMainModule, loadAverage, type StartedServer, startServerInChild, writeResults } from './lib.js';

const DELIVERIES = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 1_000);
/** With `BENCH_WEBHOOK_DOWN_PASS=1`, the relay also tries every event once while the receiver is down. */
const DOWN_PASS = process.env.BENCH_WEBHOOK_DOWN_PASS === '1';
/** How long the receiver holds each request after the outage, as one writing to its own database would. */
const HOLD_MS = 25;
const BACKLOG = Number(process.env.BENCH_WEBHOOK_BACKLOG ?? 10_000);
const OUTAGE_MS = 3_600_000;
/** A fixed secret for the bench alone: `whsec_` and the base64 of 32 bytes. */
const SECRET = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
const STATS_PATH = '/__bench/stats';

const round = (value: number, digits = 1) => Number(value.toFixed(digits));

/** What the receiver tells of itself. */
interface ReceiverStats {
  cpuMicroseconds: number;
  received: number;
  verified: number;
  rejected: number;
  duplicates: number;
  peakConcurrent: number;
}

/** The receiver's state: up or down, the requests it holds now, and what it has counted. */
function receiverState() {
  return {
    down: false,
    holdMs: 0,
    concurrent: 0,
    seen: new Set<string>(),
    stats: { received: 0, verified: 0, rejected: 0, duplicates: 0, peakConcurrent: 0 },
  };
}

/** Answers the bench's own requests: the stats, down, up, and a reset of the peak. */
function control(
  state: ReturnType<typeof receiverState>,
  request: IncomingMessage,
  response: ServerResponse,
) {
  if (request.url === '/__bench/down') state.down = true;
  if (request.url === '/__bench/up') state.down = false;
  if (request.url === '/__bench/reset') state.stats.peakConcurrent = 0;
  if (request.url === '/__bench/hold') state.holdMs = HOLD_MS;
  const { user, system } = process.cpuUsage();
  const report: ReceiverStats = { cpuMicroseconds: user + system, ...state.stats };
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(report));
}

/** One webhook: verified with `verifyWebhook`, counted once per event id, `503` while down. */
async function receive(state: ReturnType<typeof receiverState>, request: IncomingMessage, body: string) {
  const { stats } = state;
  stats.received++;
  if (state.down) return 503;
  try {
    await verifyWebhook(SECRET, request.headers as Record<string, string>, body);
  } catch {
    stats.rejected++;
    return 400;
  }
  stats.verified++;
  const id = String(request.headers['webhook-id']);
  if (state.seen.has(id)) stats.duplicates++;
  state.seen.add(id);
  if (state.holdMs > 0) await new Promise((resolve) => setTimeout(resolve, state.holdMs));
  return 204;
}

/** Child process: the receiver, at `/hooks`. */
export async function serveVerifyingReceiver(): Promise<StartedServer> {
  const state = receiverState();
  const server = createServer((request, response) => {
    if (request.url?.startsWith('/__bench/')) return control(state, request, response);
    state.concurrent++;
    state.stats.peakConcurrent = Math.max(state.stats.peakConcurrent, state.concurrent);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void receive(state, request, Buffer.concat(chunks).toString('utf8')).then((status) => {
        state.concurrent--;
        response.writeHead(status).end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Asks the receiver at `url` for its stats, after `action` (`down`, `up`, `reset`) if given. */
async function receiverStats(url: string, action = 'stats'): Promise<ReceiverStats> {
  const path = action === 'stats' ? STATS_PATH : `/__bench/${action}`;
  return (await (await fetch(`${url}${path}`, { method: 'POST' })).json()) as ReceiverStats;
}

/** The bytes of the SQLite file and of its write-ahead log. */
function sizesOf(file: string) {
  const size = (path: string) => {
    try {
      return statSync(path).size;
    } catch {
      return 0;
    }
  };
  return { fileBytes: size(file), walBytes: size(`${file}-wal`) };
}

/** Journals `count` paid orders' events for `endpoint` (order ids from `prefix`), as the webhook target does; seconds taken. */
async function journalEvents(journal: Journal, endpoint: string, prefix: string, count: number, now: number) {
  const lineItems = priceCart({ items: [{ sku: 'tote', quantity: 2 }] });
  const started = performance.now();
  for (let n = 0; n < count; n++) {
    const id = `or_${prefix}_${String(n).padStart(8, '0')}`;
    const event = await webhookEventOf({
      id,
      outcome: 'paid',
      reference: `cart-${n}`,
      metadata: { channel: 'web' },
      lineItems,
      amount: { currency: 'ghs', value: 25_000 },
      paymentStatus: 'paid',
      failureCode: null,
      otherPaidOrderIds: [],
      previousOutcome: null,
      createdAt: now - 60_000,
      settledAt: now,
      deliveredAt: null,
      customer: { name: 'Bench Customer', phoneNumber: '+233240000000' },
    });
    await journal.recordWebhookEvents([{ ...event, orderId: id, endpoints: [endpoint] }]);
  }
  return (performance.now() - started) / 1000;
}

/** A relay on a fresh SQLite journal sending to `endpoint`, on a clock `offset.ms` from the system's (or stopped at `offset.frozenAt`). */
async function relayOn(directory: string, name: string, endpoint: string) {
  const offset: { ms: number; frozenAt?: number } = { ms: 0 };
  const now = () => offset.frozenAt ?? Date.now() + offset.ms;
  const file = join(directory, `${name}.db`);
  const journal = await openJournal(`sqlite:${file}`, { clock: { now } });
  const relay = createTestRelay(
    {
      baseUrl: inProcessSandbox().url,
      journal,
      webhooks: [{ url: endpoint, secret: SECRET }],
      allowPrivateWebhookTargets: true,
      clock: { ...systemClock, now },
      watch: { ticks: false },
    },
    createCheckoutRelay,
  );
  const fulfilment = relay.fulfilment;
  if (!fulfilment) throw new Error('The relay has a journal: it must deliver.');
  return { relay, journal, fulfilment, file, offset, now };
}

/** Delivers what is due now, timed, with this process's CPU and the receiver's. */
async function timedDelivery(receiverUrl: string, deliver: () => Promise<unknown>) {
  const receiverBefore = await receiverStats(receiverUrl);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await deliver();
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const receiverAfter = await receiverStats(receiverUrl);
  return { seconds, relayCpu: cpu.user + cpu.system, receiverBefore, receiverAfter };
}

/** Deliveries per second, CPU per delivery, and the journal's growth per 1,000 events. */
async function measureThroughput(directory: string, receiverUrl: string) {
  const stack = await relayOn(directory, 'throughput', `${receiverUrl}/hooks`);
  try {
    const empty = sizesOf(stack.file);
    const journalSeconds = await journalEvents(
      stack.journal,
      `${receiverUrl}/hooks`,
      'sent',
      DELIVERIES,
      stack.now(),
    );
    const journalled = sizesOf(stack.file);
    const run = await timedDelivery(receiverUrl, () => stack.fulfilment.deliverNow());
    const delivered = sizesOf(stack.file);
    const verified = run.receiverAfter.verified - run.receiverBefore.verified;
    const perThousand = (after: number, before: number) => Math.round(((after - before) / DELIVERIES) * 1000);
    return {
      events: DELIVERIES,
      eventsJournalledPerSecond: Math.round(DELIVERIES / journalSeconds),
      verifiedAtReceiver: verified,
      deliveriesPerSecond: Math.round(verified / run.seconds),
      relayCpuMicrosecondsPerDelivery: round(run.relayCpu / verified),
      receiverCpuMicrosecondsPerDelivery: round(
        (run.receiverAfter.cpuMicroseconds - run.receiverBefore.cpuMicroseconds) / verified,
      ),
      peakConcurrentAtReceiver: run.receiverAfter.peakConcurrent,
      journal: {
        empty,
        journalled,
        delivered,
        fileBytesPer1000EventsJournalled: perThousand(journalled.fileBytes, empty.fileBytes),
        fileBytesPer1000EventsDelivered: perThousand(delivered.fileBytes, empty.fileBytes),
      },
      loadAverage: loadAverage(),
    };
  } finally {
    await stack.relay.close();
  }
}

/** While the receiver is down, the relay tries each event once, its clock stopped (so no second attempt falls due). */
async function tryWhileDown(stack: Awaited<ReturnType<typeof relayOn>>, receiverUrl: string) {
  if (!DOWN_PASS) return null;
  stack.offset.frozenAt = stack.now();
  const down = await timedDelivery(receiverUrl, () => stack.fulfilment.deliverNow());
  stack.offset.frozenAt = undefined;
  const failedAttempts = down.receiverAfter.received - down.receiverBefore.received;
  return {
    failedAttempts,
    seconds: round(down.seconds),
    attemptsPerSecond: Math.round(failedAttempts / down.seconds),
  };
}

/** 10,000 events journalled while the receiver was down, an hour ago on the relay's clock; delivered once it is back. */
async function measureBacklog(directory: string, receiverUrl: string) {
  const stack = await relayOn(directory, 'backlog', `${receiverUrl}/hooks`);
  try {
    stack.offset.ms = -OUTAGE_MS;
    await receiverStats(receiverUrl, 'down');
    const journalSeconds = await journalEvents(
      stack.journal,
      `${receiverUrl}/hooks`,
      'queued',
      BACKLOG,
      stack.now(),
    );
    const whileDown = await tryWhileDown(stack, receiverUrl);
    // An hour later on the relay's clock: every event is due at once, and the receiver is back.
    stack.offset.ms = 0;
    await receiverStats(receiverUrl, 'up');
    await receiverStats(receiverUrl, 'hold');
    await receiverStats(receiverUrl, 'reset');
    const up = await timedDelivery(receiverUrl, () => stack.fulfilment.deliverNow());
    const verified = up.receiverAfter.verified - up.receiverBefore.verified;
    const failed = await stack.relay.webhooks?.list({ failed: true });
    return {
      events: BACKLOG,
      eventsJournalledPerSecond: Math.round(BACKLOG / journalSeconds),
      whileDown,
      afterAnHour: {
        receiverHoldsEachRequestMs: HOLD_MS,
        verifiedAtReceiver: verified,
        seconds: round(up.seconds),
        deliveriesPerSecond: Math.round(verified / up.seconds),
        peakConcurrentAtReceiver: up.receiverAfter.peakConcurrent,
        boundPerEndpoint: MAX_SENDS_PER_ENDPOINT,
        duplicatesAtReceiver: up.receiverAfter.duplicates,
        rejectedAtReceiver: up.receiverAfter.rejected,
        failedDeliveries: failed?.length ?? 0,
      },
      loadAverage: loadAverage(),
    };
  } finally {
    await stack.relay.close();
  }
}

/** Runs both parts and writes bench/results/webhooks.json. */
async function main(): Promise<void> {
  const receiver = await startServerInChild(new URL(import.meta.url), 'serveVerifyingReceiver');
  const directory = mkdtempSync(join(tmpdir(), 'pay-checkout-webhooks-bench-'));
  try {
    const throughput = await measureThroughput(directory, receiver.url);
    process.stdout.write(`throughput: ${JSON.stringify(throughput)}\n`);
    const backlog = await measureBacklog(directory, receiver.url);
    process.stdout.write(`backlog: ${JSON.stringify(backlog)}\n`);
    const held = backlog.afterAnHour.peakConcurrentAtReceiver <= MAX_SENDS_PER_ENDPOINT;
    const complete =
      backlog.afterAnHour.verifiedAtReceiver === BACKLOG && backlog.afterAnHour.duplicatesAtReceiver === 0;
    const path = await writeResults('webhooks', { throughput, backlog, bound: { held, complete } });
    process.stdout.write(`Results: ${path}\n`);
    if (!held || !complete) throw new Error('The backlog broke its bound or lost or repeated an event.');
  } finally {
    await receiver.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

if (isMainModule(import.meta.url)) await main();
