/**
 * Runs fulfilment in one relay process: a watcher pass every interval, each
 * followed by the deliveries due to the relay's target (and pruning once an
 * hour), and delivery at once when an order settles. The ticks never wait for
 * a delivery: each runs on its own (delivery.ts), so the watcher keeps its
 * rhythm whatever the target (the merchant's callbacks) does. Watcher passes
 * never overlap.
 *
 * With webhooks, a dispatcher (webhooks/webhook-dispatcher.ts) sends the
 * journalled events on its own polls and as soon as they are journalled.
 *
 * `close()` stops the ticks and claims nothing more, gives the work in flight
 * (deliveries, the journal writes of creates and lookups, a watcher pass)
 * `CLOSE_GRACE_MS` to end and a webhook send in flight its own bound
 * (`WEBHOOK_SEND_TIMEOUT_MS`), abandons what is left (an abandoned delivery's
 * order is delivered again after its lease runs out, in this or another
 * process), and gives the journal `JOURNAL_CLOSE_TIMEOUT_MS` to close. It
 * never rejects: a journal that fails to close is reported through `onEvent`.
 */
import { endsWith, timedWait } from '../../shared/answered-within.js';
import type { RelayReporter } from '../events/relay-reporter.js';
import type { CustomersInHand } from '../lookups/customers-in-hand.js';
import type { ServiceClient } from '../service-client/service-client.js';
import { createDelivery, type Delivery } from './delivery.js';
import { sweepLatePayments } from './late-payment-sweep.js';
import { type CheckoutOrders, createOrderRecords } from './order-records.js';
import {
  createOrderWatcher,
  type OrderWatcher,
  type WatcherLookups,
  type WatchPass,
} from './order-watcher.js';
import type { FulfilmentSettings, WatchTimers } from './watch-settings.js';
import { WEBHOOK_SEND_TIMEOUT_MS } from './webhooks/webhook-attempt.js';
import { startWebhookDispatcher, type WebhookDispatcher } from './webhooks/webhook-dispatcher.js';

/** Shortest wait between two ticks, so a watcher that cannot keep up still yields to the server. */
const MIN_TICK_GAP_MS = 50;
/** How often settled orders past their retention are deleted. */
const PRUNE_EVERY_MS = 60 * 60 * 1000;
/** How often a process asks the journal whether the fleet's sweep for late payments is its to run. */
const SWEEP_CHECK_MS = 60 * 1000;
/** How long `close()` waits for the work in flight before it abandons it. */
export const CLOSE_GRACE_MS = 5_000;
/** How long `close()` waits for the journal to close; `close()` resolves within the two together: 10 s (20 s with a webhook send in flight, which ends within its 15 s and is recorded). */
export const JOURNAL_CLOSE_TIMEOUT_MS = 5_000;

/** What one `tick()` did. */
export interface FulfilmentTick extends WatchPass {
  /** Callbacks that returned in this tick. */
  delivered: number;
}

/** The fulfilment of one relay process, as merchants see it (`relay.fulfilment`). */
export interface FulfilmentRunner {
  /**
   * Runs one watcher pass and delivers the callbacks due now (for tests, or a
   * cron job with `watch.ticks: false`); resolves once those callbacks have
   * returned, failed or run out of time.
   */
  tick(): Promise<FulfilmentTick>;
  /** Delivers settled orders now, without waiting for the next tick; resolves as `tick()` does. */
  deliverNow(): Promise<number>;
}

/** The runner as the relay holds it: the handlers' writes are tracked, and the relay closes it. */
export interface RelayFulfilment extends FulfilmentRunner {
  /** Keeps `close()` waiting for `work` (a create or lookup writing to the journal), within its grace. */
  track<T>(work: Promise<T>): Promise<T>;
  /** Stops the ticks, lets the work in flight end within a grace, and closes the journal; never rejects. */
  close(): Promise<void>;
  /** `relay.orders`, read from the journal. */
  readonly orders: CheckoutOrders;
  /** Sends the webhook deliveries due now (after a replay); nothing without webhooks. */
  dispatchWebhooks(): void;
}

/** One process's fulfilment: its parts and what is running. */
interface Runner {
  readonly settings: FulfilmentSettings;
  readonly reporter: Pick<RelayReporter, 'emit'>;
  readonly watcher: OrderWatcher;
  readonly delivery: Delivery;
  /** The webhook dispatcher, when the relay has webhooks. */
  readonly webhooks: WebhookDispatcher | undefined;
  /** Creates and lookups writing to the journal. */
  readonly inFlight: Set<Promise<unknown>>;
  stopped: boolean;
  timer: unknown;
  watching: Promise<WatchPass> | undefined;
  prunedAt: number;
  /** The sweep for late payments running now, and when this process last asked for its turn. */
  sweeping: Promise<unknown> | undefined;
  sweepCheckedAt: number;
  readonly client: ServiceClient;
  readonly customers: CustomersInHand;
}

/**
 * Starts fulfilment for a relay (its watcher looks up through `lookups`, and
 * its deliveries find the customer of an order that just settled in
 * `customers`); ticks begin at once when the settings have timers.
 */
export function startFulfilment(
  settings: FulfilmentSettings,
  client: ServiceClient,
  relayReporter: RelayReporter,
  { lookups, customers }: { lookups: WatcherLookups; customers: CustomersInHand },
): RelayFulfilment {
  let closed = false;
  const reporter: Pick<RelayReporter, 'emit'> = {
    emit(event) {
      // Once close() has resolved, what is still finishing (an abandoned pass
      // writing to the closed journal) stays quiet.
      if (!closed) relayReporter.emit(event);
    },
  };
  const records = createOrderRecords(settings, client, customers);
  const delivery = createDelivery({ settings, reporter, records });
  const watcher = createOrderWatcher({
    settings,
    client,
    lookups,
    reporter,
    onSettled: () => void delivery.deliverDue(),
  });
  const webhooks = startWebhooks(settings, reporter);
  const runner: Runner = {
    settings,
    reporter,
    watcher,
    delivery,
    webhooks,
    inFlight: new Set(),
    stopped: false,
    timer: undefined,
    watching: undefined,
    prunedAt: Number.NEGATIVE_INFINITY,
    sweeping: undefined,
    sweepCheckedAt: Number.NEGATIVE_INFINITY,
    client,
    customers,
  };
  let closing: Promise<void> | undefined;
  // The first tick at once: orders a previous process left are picked up on start.
  schedule(runner, 0);
  return {
    tick: () => tick(runner),
    deliverNow: () => deliverNow(runner),
    track<T>(work: Promise<T>): Promise<T> {
      runner.inFlight.add(work);
      return work.finally(() => runner.inFlight.delete(work));
    },
    close() {
      closing ??= close(runner).finally(() => {
        closed = true;
      });
      return closing;
    },
    orders: records,
    dispatchWebhooks: () => void webhooks?.dispatchDue(),
  };
}

/** The webhook dispatcher of `settings`' endpoints, told of each order's events as they are journalled. */
function startWebhooks(
  settings: FulfilmentSettings,
  reporter: Pick<RelayReporter, 'emit'>,
): WebhookDispatcher | undefined {
  const { webhooks } = settings;
  if (!webhooks) return undefined;
  const dispatcher = startWebhookDispatcher({
    journal: settings.journal,
    endpoints: webhooks.endpoints,
    send: webhooks.send,
    allowPrivateTargets: webhooks.allowPrivateTargets,
    owner: settings.owner,
    now: settings.now,
    timers: settings.timers,
    waitTimers: settings.deliveryTimers,
    elapsedClocks: settings.elapsedClocks,
    reporter,
  });
  webhooks.journalled.listener = () => void dispatcher.dispatchDue();
  return dispatcher;
}

/** One watcher pass; a pass already running is joined, never doubled. */
function watchOnce(runner: Runner): Promise<WatchPass> {
  runner.watching ??= runner.watcher.watchOnce().finally(() => {
    runner.watching = undefined;
  });
  return runner.watching;
}

/** The merchant's tick: a pass, then the deliveries it started (there or as orders settled), awaited. */
async function tick(runner: Runner): Promise<FulfilmentTick> {
  if (runner.stopped) return { calls: 0, paused: false, delivered: 0 };
  const mark = runner.delivery.mark();
  const pass = await watchOnce(runner);
  await sweep(runner);
  await runner.delivery.deliverDue();
  const delivered = await runner.delivery.settledSince(mark);
  await sendWebhooks(runner);
  await prune(runner);
  return { ...pass, delivered };
}

/** The merchant's delivery now: what is due, awaited. */
async function deliverNow(runner: Runner): Promise<number> {
  if (runner.stopped) return 0;
  const mark = runner.delivery.mark();
  await runner.delivery.deliverDue();
  const delivered = await runner.delivery.settledSince(mark);
  await sendWebhooks(runner);
  return delivered;
}

/** The webhook deliveries due now, sent and recorded. */
async function sendWebhooks(runner: Runner): Promise<void> {
  if (!runner.webhooks || runner.stopped) return;
  await runner.webhooks.dispatchDue();
  await runner.webhooks.settled();
}

/** The timers' tick: a pass, then deliveries started and left to run on their own. */
async function timedTick(runner: Runner): Promise<void> {
  await watchOnce(runner);
  if (runner.stopped) return;
  void runner.delivery.deliverDue();
  // On its own: a long sweep never holds up the watcher's rhythm.
  void sweep(runner);
  await prune(runner);
}

/** The fleet's sweep for late payments, when this process's turn may have come; one at a time. */
function sweep(runner: Runner): Promise<unknown> {
  const { settings } = runner;
  const now = settings.now();
  if (runner.stopped || runner.sweeping) return runner.sweeping ?? Promise.resolve();
  // A clock set back asks at once rather than never.
  if (now >= runner.sweepCheckedAt && now - runner.sweepCheckedAt < SWEEP_CHECK_MS) return Promise.resolve();
  runner.sweepCheckedAt = now;
  runner.sweeping = sweepLatePayments({
    settings,
    client: runner.client,
    customers: runner.customers,
    reporter: runner.reporter,
    onFound: () => void runner.delivery.deliverDue(),
    stopped: () => runner.stopped,
  }).finally(() => {
    runner.sweeping = undefined;
  });
  return runner.sweeping;
}

function schedule(runner: Runner, ms: number): void {
  const { settings } = runner;
  const timers = settings.timers;
  if (!timers || runner.stopped) return;
  runner.timer = timers.setTimeout(() => {
    runner.timer = undefined;
    // One interval from the start of this tick: a long pass is followed at once
    // by the next, and a clock set back during the pass never stretches the wait.
    const startedAt = settings.now();
    timedTick(runner).finally(() => {
      const left = settings.intervalMs - (settings.now() - startedAt);
      schedule(runner, Math.min(settings.intervalMs, Math.max(MIN_TICK_GAP_MS, left)));
    });
  }, ms);
}

async function prune(runner: Runner): Promise<void> {
  const { settings } = runner;
  const now = settings.now();
  // A clock set back prunes at once rather than never.
  if (now >= runner.prunedAt && now - runner.prunedAt < PRUNE_EVERY_MS) return;
  runner.prunedAt = now;
  try {
    await settings.journal.prune({ retentionMs: settings.retentionMs });
  } catch (error) {
    runner.reporter.emit({ type: 'watcher_error', stage: 'prune', error });
  }
}

async function close(runner: Runner): Promise<void> {
  const { settings, delivery, reporter } = runner;
  // No new tick, claim or delivery starts from here.
  runner.stopped = true;
  if (runner.timer !== undefined) settings.timers?.clearTimeout(runner.timer);
  const work = Promise.allSettled([...runner.inFlight, runner.watching, runner.sweeping, delivery.drain()]);
  // A webhook send in flight ends within its own bound; its attempt is recorded before the journal closes.
  const sends = runner.webhooks?.drain();
  const [workEnded] = await Promise.all([
    within(settings.deliveryTimers, CLOSE_GRACE_MS, work),
    sends && within(settings.deliveryTimers, WEBHOOK_SEND_TIMEOUT_MS + CLOSE_GRACE_MS, sends),
  ]);
  if (!workEnded) delivery.abandon();
  try {
    const journalClosed = await within(
      settings.deliveryTimers,
      JOURNAL_CLOSE_TIMEOUT_MS,
      settings.journal.close(),
    );
    if (!journalClosed) throw new Error(`The journal did not close within ${JOURNAL_CLOSE_TIMEOUT_MS} ms.`);
  } catch (error) {
    reporter.emit({ type: 'watcher_error', stage: 'close', error });
  }
}

/** Whether `work` settles within `ms`; rejects if it rejects in time. */
function within(timers: WatchTimers, ms: number, work: Promise<unknown>): Promise<boolean> {
  return timedWait(
    timers,
    ms,
    () => false,
    endsWith(work, () => true),
  );
}
