/**
 * What one order nobody will pay costs the service over its life
 * (bench/fulfilment.bench.ts runs it): a payer who never answers, the relay's
 * watcher on a memory journal, and no tab polling. The relay's, the
 * journal's and the sandbox's clock is moved by hand one second at a time
 * through the 24 hours the watcher keeps an order, each second a watcher
 * pass, so a day takes seconds; every lookup the sandbox answers is counted,
 * in the payer's approval window and after it, until `onExpired`.
 */
import { createSandbox, SANDBOX_KEYS } from '../src/sandbox/index.js';
import { SANDBOX_TEST_NUMBERS } from '../src/sandbox/test-numbers.js';
import { DEFAULT_APPROVAL_WINDOW_MS, DEFAULT_MAX_WATCH_MS } from '../src/server/fulfilment/watch-settings.js';
import { type CheckoutRelay, createCheckoutRelay, openJournal } from '../src/server/index.js';
import { systemClock } from '../src/shared/clock.js';
import { checkoutIntent, priceAnyCart, UNLIMITED } from '../test/fixtures/checkout-data.js';

/** A never-settling order's service lookups. */
export interface NeverSettlingFigures {
  /** While the payer can approve (the first 6 minutes). */
  inApprovalWindow: number;
  /** From then until `onExpired`. */
  afterIt: number;
  total: number;
  /** When `onExpired` came, in hours after the create. */
  expiredAfterHours: number;
}

/** Watches one order whose payer never answers until the watcher gives up on it. */
export async function measureNeverSettling(): Promise<NeverSettlingFigures> {
  const time = { now: Date.UTC(2026, 0, 15, 9, 30) };
  const clock = { ...systemClock, now: () => time.now };
  const sandbox = createSandbox({ clock });
  const createdAt = time.now;
  const lookupTimes: number[] = [];
  let expiredAt: number | undefined;
  const relay = createCheckoutRelay({
    secretKey: SANDBOX_KEYS.secret,
    baseUrl: 'http://sandbox.invalid',
    fetch: async (input, init) => {
      const request = new Request(input, init);
      if (request.url.endsWith('/orders/lookup')) lookupTimes.push(time.now - createdAt);
      return sandbox.handle(request);
    },
    lookupSecret: 'bench-never-settling-0123456789abcdef',
    priceCart: priceAnyCart,
    rateLimit: { create: UNLIMITED, lookup: UNLIMITED, promptsPerNumber: false },
    onEvent: () => undefined,
    journal: await openJournal('memory:', { clock }),
    onPaid: () => undefined,
    onExpired: () => {
      expiredAt = time.now;
    },
    clock,
    watch: { ticks: false },
  });
  try {
    await createNeverAnsweringOrder(relay, 'bench-never-settling-0123456789');
    while (expiredAt === undefined && time.now - createdAt <= DEFAULT_MAX_WATCH_MS + 3_600_000) {
      time.now += 1_000;
      await relay.fulfilment?.tick();
    }
  } finally {
    await relay.close();
  }
  if (expiredAt === undefined) throw new Error('The order never reached onExpired.');
  const inApprovalWindow = lookupTimes.filter((at) => at < DEFAULT_APPROVAL_WINDOW_MS).length;
  return {
    inApprovalWindow,
    afterIt: lookupTimes.length - inApprovalWindow,
    total: lookupTimes.length,
    expiredAfterHours: Number(((expiredAt - createdAt) / 3_600_000).toFixed(2)),
  };
}

/** Creates, through `relay`, one order to the sandbox's number whose payer never answers. */
export async function createNeverAnsweringOrder(relay: CheckoutRelay, idempotencyKey: string): Promise<void> {
  const number = SANDBOX_TEST_NUMBERS.neverAnswers;
  const intent = checkoutIntent({
    customer_data: { name: 'Ama Mensah', phone_number: `+233${number.slice(1)}` },
    payment_method_data: { type: 'mobile_money', mobile_money: { issuer: 'mtn', number } },
  });
  const created = await relay.create(
    new Request('http://shop.example/api/checkout/orders', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
      body: JSON.stringify(intent),
    }),
    { clientAddress: '127.0.0.1' },
  );
  if (created.status !== 200) throw new Error(`create answered ${created.status}`);
}
