/**
 * What the sweep for late payments costs the service (an order
 * paid after `onExpired` is found by a sweep of `/orders/page`), counted at a
 * real sandbox in this process, its clock and the relay's moved by hand.
 *
 * The worst case: the journal holds one order settled `expired` that is
 * older than every other order at the service, so each sweep pages back
 * through all of them. The relay creates it with the never-answering test
 * number and watches it past the 24-hour bound (`onExpired`); then the
 * sandbox is given `SETTLED` more orders, paid, newer than it. The clock runs
 * one simulated hour, a watcher pass a minute, and the sandbox counts every
 * `/orders/page` and `/orders/lookup` it answers in that hour. The same hour
 * with no expired order costs nothing; a late payment found costs one lookup
 * more. The figure for 100,000 orders is the formula the count confirms:
 * `sweeps an hour × ceil((orders since the oldest expired one + 1) / 256)`.
 */
import { createSandbox, SANDBOX_KEYS } from '../src/sandbox/index.js';
import { SWEEP_PAGE_SIZE } from '../src/server/fulfilment/late-payment-sweep.js';
import { DEFAULT_MAX_WATCH_MS, DEFAULT_SWEEP_INTERVAL_MS } from '../src/server/fulfilment/watch-settings.js';
import { createCheckoutRelay, openJournal } from '../src/server/index.js';
import { systemClock } from '../src/shared/clock.js';
import { creationInput, priceAnyCart, UNLIMITED } from '../test/fixtures/checkout-data.js';
import { isMainModule, writeResults } from './lib.js';
import { createNeverAnsweringOrder } from './never-settling.js';

const HOUR_MS = 60 * 60 * 1000;
const MINUTE_MS = 60 * 1000;

/** Service calls a sweep made in one simulated hour. */
interface HourOfSweeps {
  settledOrders: number;
  expiredOrdersInJournal: number;
  pageCalls: number;
  lookupCalls: number;
  callsPerHour: number;
}

/** Sweep calls each hour, by the formula: sweeps an hour, times the pages back to the oldest expired order. */
export function sweepCallsPerHour(
  ordersSinceOldestExpired: number,
  sweepIntervalMs = DEFAULT_SWEEP_INTERVAL_MS,
) {
  const sweepsPerHour = HOUR_MS / sweepIntervalMs;
  // The paging rule stops at a short page: a multiple of 256 costs one empty page more.
  return sweepsPerHour * Math.ceil((ordersSinceOldestExpired + 1) / SWEEP_PAGE_SIZE);
}

/** Counts the sweep's service calls over one hour with `settled` orders newer than one expired order (or none). */
async function measureHour(settled: number, withExpired: boolean): Promise<HourOfSweeps> {
  const time = { now: Date.UTC(2026, 0, 15, 9, 30) };
  const clock = { ...systemClock, now: () => time.now };
  const sandbox = createSandbox({ clock, approveAfterMs: 1_000 });
  const counting = { on: false, pages: 0, lookups: 0 };
  const relay = createCheckoutRelay({
    secretKey: SANDBOX_KEYS.secret,
    baseUrl: 'http://sandbox.invalid',
    fetch: async (input, init) => {
      const request = new Request(input, init);
      if (counting.on && request.url.endsWith('/orders/page')) counting.pages += 1;
      if (counting.on && request.url.endsWith('/orders/lookup')) counting.lookups += 1;
      return sandbox.handle(request);
    },
    lookupSecret: 'bench-late-payments-0123456789abcdef',
    priceCart: priceAnyCart,
    rateLimit: { create: UNLIMITED, lookup: UNLIMITED, promptsPerNumber: false },
    onEvent: () => undefined,
    journal: await openJournal('memory:', { clock }),
    onPaid: () => undefined,
    onExpired: () => undefined,
    clock,
    watch: { ticks: false },
  });
  try {
    if (withExpired) {
      await createNeverAnsweringOrder(relay, 'bench-late-payment-0123456789');
      time.now += DEFAULT_MAX_WATCH_MS;
      await relay.fulfilment?.tick();
    }
    time.now += MINUTE_MS;
    sandbox.seedOrders(settled, creationInput);
    // Paid by now: the pages show them completed, and none is the journal's.
    time.now += MINUTE_MS;
    counting.on = true;
    for (let minute = 0; minute < 60; minute++) {
      time.now += MINUTE_MS;
      await relay.fulfilment?.tick();
    }
  } finally {
    await relay.close();
  }
  return {
    settledOrders: settled,
    expiredOrdersInJournal: withExpired ? 1 : 0,
    pageCalls: counting.pages,
    lookupCalls: counting.lookups,
    callsPerHour: counting.pages + counting.lookups,
  };
}

async function main(): Promise<void> {
  const measured = await measureHour(1_000, true);
  const withoutExpired = await measureHour(1_000, false);
  const formula = {
    text: 'sweeps an hour (60 min / sweepIntervalMs, default 15 min: 4) × ceil((orders at the service since the oldest order the journal holds expired, within the retention period, + 1) / 256), + 1 lookup per late payment found; 0 while the journal holds no expired order',
    callsPerHourFor1000: sweepCallsPerHour(1_000),
    callsPerHourFor100000: sweepCallsPerHour(100_000),
  };
  if (measured.callsPerHour !== formula.callsPerHourFor1000) {
    throw new Error(
      `Counted ${measured.callsPerHour} calls, the formula says ${formula.callsPerHourFor1000}.`,
    );
  }
  const file = await writeResults('late-payments', {
    settings: {
      sweepIntervalMs: DEFAULT_SWEEP_INTERVAL_MS,
      pageSize: SWEEP_PAGE_SIZE,
      sandbox: 'in process, its clock moved by hand one minute per watcher pass for one hour',
      worstCase:
        'one order settled expired, older than every other order at the service: each sweep pages back through all',
    },
    measured,
    withoutExpiredOrders: withoutExpired,
    formula,
  });
  process.stdout.write(`${JSON.stringify({ measured, withoutExpired, formula }, null, 2)}\nWrote ${file}\n`);
}

if (isMainModule(import.meta.url)) await main();
