/**
 * Runs fulfilment in one relay process: a watcher pass, then a delivery
 * pass, every interval (and pruning once an hour); delivery at once when an
 * order settles; and `close()`, which stops the ticks, waits for the calls in
 * flight and closes the journal. Passes never overlap.
 */
import type { RelayReporter } from '../events/relay-reporter.js';
import type { ServiceClient } from '../service-client/service-client.js';
import { createDelivery } from './delivery.js';
import { type CheckoutOrders, createOrderRecords } from './order-records.js';
import { createOrderWatcher, type WatchPass } from './order-watcher.js';
import type { FulfilmentSettings } from './watch-settings.js';

/** Shortest wait between two ticks, so a watcher that cannot keep up still yields to the server. */
const MIN_TICK_GAP_MS = 50;
/** How often settled orders past their retention are deleted. */
const PRUNE_EVERY_MS = 60 * 60 * 1000;

/** What one `tick()` did. */
export interface FulfilmentTick extends WatchPass {
  /** Callbacks that returned in this tick. */
  delivered: number;
}

/** The fulfilment of one relay process, as merchants see it (`relay.fulfilment`). */
export interface FulfilmentRunner {
  /** Runs one watcher pass and one delivery pass now (for tests, or a cron job whose relay `clock` never fires). */
  tick(): Promise<FulfilmentTick>;
  /** Delivers settled orders now, without waiting for the next tick. */
  deliverNow(): Promise<number>;
}

/** The runner as the relay holds it: the handlers' writes are tracked, and the relay closes it. */
export interface RelayFulfilment extends FulfilmentRunner {
  /** Keeps `close()` waiting for `work` (a create or lookup writing to the journal). */
  track<T>(work: Promise<T>): Promise<T>;
  /** Stops the ticks, waits for the work in flight, and closes the journal. */
  close(): Promise<void>;
  /** `relay.orders`, read from the journal. */
  readonly orders: CheckoutOrders;
}

/** Starts fulfilment for a relay; ticks begin at once when the settings have timers. */
export function startFulfilment(
  settings: FulfilmentSettings,
  client: ServiceClient,
  reporter: RelayReporter,
): RelayFulfilment {
  const inFlight = new Set<Promise<unknown>>();
  let stopped = false;
  let timer: unknown;
  let ticking: Promise<FulfilmentTick> | undefined;
  let delivering: Promise<number> | undefined;
  let deliverAgain = false;
  let prunedAt = Number.NEGATIVE_INFINITY;
  const records = createOrderRecords(settings, client);
  const deliverOnce = createDelivery({ settings, reporter, records });
  const watcher = createOrderWatcher({ settings, client, reporter, onSettled: () => void deliverNow() });

  function deliverNow(): Promise<number> {
    if (stopped) return Promise.resolve(0);
    if (delivering) {
      deliverAgain = true;
      return delivering;
    }
    delivering = (async () => {
      let delivered = 0;
      do {
        deliverAgain = false;
        delivered += await deliverOnce();
      } while (deliverAgain && !stopped);
      return delivered;
    })().finally(() => {
      delivering = undefined;
    });
    return delivering;
  }

  async function prune(): Promise<void> {
    const now = settings.now();
    if (now - prunedAt < PRUNE_EVERY_MS) return;
    prunedAt = now;
    try {
      await settings.journal.prune({ now, retentionMs: settings.retentionMs });
    } catch (error) {
      reporter.emit({ type: 'watcher_error', stage: 'prune', error });
    }
  }

  function tick(): Promise<FulfilmentTick> {
    if (stopped) return Promise.resolve({ calls: 0, paused: false, delivered: 0 });
    ticking ??= (async () => {
      const pass = await watcher.watchOnce();
      const delivered = await deliverNow();
      await prune();
      return { ...pass, delivered };
    })().finally(() => {
      ticking = undefined;
    });
    return ticking;
  }

  function schedule(ms: number): void {
    const timers = settings.timers;
    if (!timers || stopped) return;
    timer = timers.setTimeout(() => {
      timer = undefined;
      // One interval from the start of this tick: a long pass is followed at once by the next.
      const startedAt = settings.now();
      tick().finally(() =>
        schedule(Math.max(MIN_TICK_GAP_MS, settings.intervalMs - (settings.now() - startedAt))),
      );
    }, ms);
  }

  function track<T>(work: Promise<T>): Promise<T> {
    inFlight.add(work);
    return work.finally(() => inFlight.delete(work));
  }

  async function close(): Promise<void> {
    if (stopped) return;
    // No new tick or delivery starts; the ones running finish their calls and writes.
    stopped = true;
    if (timer !== undefined) settings.timers?.clearTimeout(timer);
    await Promise.allSettled([...inFlight]);
    await ticking?.catch(() => undefined);
    await delivering?.catch(() => undefined);
    await settings.journal.close();
  }

  // The first tick at once: orders a previous process left are picked up on start.
  schedule(0);
  return { tick, deliverNow, track, close, orders: records };
}
