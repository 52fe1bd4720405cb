/**
 * The fault suite (issue #7): the real `<pay-checkout>` in Chromium, the real
 * relay and the real sandbox, with a fault proxy breaking the wire in front
 * of the relay and in front of the sandbox. One row per fault; for each, the
 * sandbox holds exactly one order for the attempt, the element shows the
 * right final state, and each event fired once (reloads included). The
 * README's "Faults we test" table lists these rows.
 *
 * Rows run a few at a time, each with its own servers and browser context.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as wait } from 'node:timers/promises';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../../scripts/chromium.mjs';
import { REQUEST_TIMEOUT_MS } from '../../src/element/checkout-api.js';
import { EN_STRINGS } from '../../src/element/locale/en.js';
import { SANDBOX_KEYS, type Sandbox } from '../../src/sandbox/index.js';
import { SHOPPER } from '../fixtures/checkout-data.js';
import {
  CHECKOUT_URLS,
  type CheckoutStack,
  type RecordedPayEvent,
  startCheckoutStack,
} from '../fixtures/checkout-stack.js';
import { type FaultPlan, type RouteFaults, scriptedFaults } from '../fixtures/fault-proxy.js';
import { eventually } from '../fixtures/wait.js';

type FinalState = 'paid' | 'failed' | 'timeout';
type EventName = RecordedPayEvent['type'];

/** What a row does and what it must end with. */
interface FaultCase {
  name: string;
  /** Scripted faults between the browser and the relay, per route (`/orders`, `/lookup`). */
  relayFaults?: RouteFaults;
  /** Scripted faults between the relay and the sandbox, per route (`/orders/new`, `/orders/lookup`). */
  sandboxFaults?: RouteFaults;
  /** The payer's number: which outcome the sandbox gives. */
  number?: string;
  /** The sandbox's approval delay; default 1500 ms. */
  approveAfterMs?: number;
  /** A proxy that is offline when the form is sent (the page itself loaded first). */
  startsOffline?: 'relay' | 'sandbox';
  attributes?: Record<string, string>;
  /** Drives the row's fault while the checkout runs (offline, reloads…); the form is already sent. */
  during?: (run: RunningCase) => Promise<void>;
  finalState: FinalState;
  /** Every `pay-state-change`, in order. */
  states: string[];
  /** How many times each event fired; an event not named must not fire at all. */
  events: Partial<Record<Exclude<EventName, 'pay-state-change'>, number>>;
}

/** What a row's `during` can act on. */
interface RunningCase {
  page: Page;
  context: BrowserContext;
  stack: CheckoutStack;
}

const DECLINES = '0244000002';
const NEVER_ANSWERS = '0244000003';
const FAST_POLLS = { 'poll-interval': '2000' };
const STATE_TIMEOUT_MS = 60_000;

const PAID_STATES = ['submitting', 'requires_action', 'paid'];
const PAID_EVENTS = { 'pay-submit': 1, 'pay-created': 1, 'pay-requires-action': 1, 'pay-paid': 1 };

const cut: FaultPlan = { kind: 'cut-after-upstream' };
const resetAfter: FaultPlan = { kind: 'reset-after-upstream' };
const reset: FaultPlan = { kind: 'reset' };
/** Held until the same request comes again: the client gave up on it, however long its time-out took. */
const held: FaultPlan = { kind: 'hold-answer' };
const status = (code: number, headers?: Record<string, string>): FaultPlan => ({
  kind: 'answer',
  status: code,
  body: {
    error: {
      code: code === 429 ? 'rate_limited' : 'service_unavailable',
      message: 'Injected by the fault proxy.',
      type: code === 429 ? 'rate_limit_error' : 'api_error',
    },
  },
  ...(headers ? { headers } : {}),
});

/** The rows. The README's "Faults we test" table follows them. */
const FAULT_CASES: FaultCase[] = [
  {
    name: 'browser→relay: the create answer is lost three times after the relay created the order',
    relayFaults: { '/orders': [cut, cut, cut] },
    finalState: 'paid',
    states: PAID_STATES,
    events: PAID_EVENTS,
  },
  {
    name: 'browser→relay: the connection is reset (RST) twice after the relay created the order',
    relayFaults: { '/orders': [resetAfter, resetAfter] },
    finalState: 'paid',
    states: PAID_STATES,
    events: PAID_EVENTS,
  },
  {
    name: 'browser→relay: the connection is reset twice before the create reaches the relay',
    relayFaults: { '/orders': [reset, reset] },
    finalState: 'paid',
    states: PAID_STATES,
    events: PAID_EVENTS,
  },
  {
    name: 'browser→relay: the create is answered 503 twice, then 500',
    relayFaults: { '/orders': [status(503), status(503), status(500)] },
    finalState: 'paid',
    states: PAID_STATES,
    events: PAID_EVENTS,
  },
  {
    name: 'browser→relay: the create is answered 429 with Retry-After: 1',
    relayFaults: { '/orders': [status(429, { 'retry-after': '1' })] },
    finalState: 'paid',
    states: PAID_STATES,
    events: PAID_EVENTS,
  },
  {
    name: `browser→relay: the create answer is held past the element’s ${REQUEST_TIMEOUT_MS / 1000} s time-out, until it sends again`,
    relayFaults: { '/orders': [held] },
    finalState: 'paid',
    states: PAID_STATES,
    events: PAID_EVENTS,
  },
  {
    name: 'browser→relay: lookups answered 503, then lost after the relay answered',
    relayFaults: { '/lookup': [status(503), cut] },
    finalState: 'paid',
    states: PAID_STATES,
    events: PAID_EVENTS,
  },
  {
    name: 'browser→relay: the payer declines while lookup answers are lost',
    number: DECLINES,
    relayFaults: { '/lookup': [cut, resetAfter] },
    finalState: 'failed',
    states: ['submitting', 'requires_action', 'failed'],
    events: { 'pay-submit': 1, 'pay-created': 1, 'pay-requires-action': 1, 'pay-failed': 1 },
  },
  {
    name: 'browser→relay: the relay is offline through every automatic retry, then back: "Try again"',
    startsOffline: 'relay',
    during: async ({ page, stack }) => {
      await page.locator('pay-checkout[state="error"]').waitFor({ timeout: STATE_TIMEOUT_MS });
      assert.ok(stack.relayProxy.refusedConnections >= 1, 'connections were refused while offline');
      stack.relayProxy.setOffline(false);
      await page.locator('pay-checkout').getByRole('button', { name: EN_STRINGS.tryAgain }).click();
    },
    finalState: 'paid',
    states: ['submitting', 'error', 'submitting', 'requires_action', 'paid'],
    events: { ...PAID_EVENTS, 'pay-error': 1 },
  },
  {
    name: 'browser→relay: the page is reloaded while the create answer is held back',
    // Held until the reloaded page resends it: the first page never hears it.
    relayFaults: { '/orders': [held] },
    during: async ({ page, stack }) => {
      // Reload once the relay has the create: the reloaded page resends it under the same key.
      await eventually(
        'the relay to create the order',
        () => stack.relayEvents.some((event) => event.type === 'order_created'),
        { timeoutMs: STATE_TIMEOUT_MS },
      );
      await page.reload();
    },
    finalState: 'paid',
    // The reloaded element takes `submitting` back from storage without a change event.
    states: PAID_STATES,
    events: PAID_EVENTS,
  },
  {
    name: 'device offline while the payer approves, then back online',
    // This payer answers only when the test says so: while the device is offline.
    number: NEVER_ANSWERS,
    during: async ({ page, context, stack }) => {
      await page.locator('pay-checkout[state="requires_action"]').waitFor({ timeout: STATE_TIMEOUT_MS });
      await context.setOffline(true);
      // The note on screen; the live region says it too, after the screen's message.
      await page.getByText(EN_STRINGS.offline, { exact: true }).waitFor({ timeout: STATE_TIMEOUT_MS });
      // A lookup already on its way when the device went offline may still land: let it be answered.
      await eventually('the lookup on its way to be answered', () => stack.relayProxy.inFlight === 0);
      const lookupsBefore = countRequests(stack, CHECKOUT_URLS.lookup);
      stack.sandbox.approve(createdOrderId(stack));
      // A window in which nothing may happen (two poll intervals: online, the element would have
      // looked by now), not a wait for something: a slow machine can only hide a bug here, never
      // fail a correct element.
      await wait(4500);
      assert.equal(await page.locator('pay-checkout').getAttribute('state'), 'requires_action');
      assert.equal(countRequests(stack, CHECKOUT_URLS.lookup), lookupsBefore, 'no lookup while offline');
      await context.setOffline(false);
    },
    finalState: 'paid',
    states: PAID_STATES,
    events: PAID_EVENTS,
  },
  {
    name: 'relay→service: the create answer is lost after the service created the order',
    sandboxFaults: { '/orders/new': [cut] },
    finalState: 'paid',
    states: PAID_STATES,
    events: PAID_EVENTS,
  },
  {
    name: 'relay→service: the connection is reset (RST) after the service created the order',
    sandboxFaults: { '/orders/new': [resetAfter] },
    finalState: 'paid',
    states: PAID_STATES,
    events: PAID_EVENTS,
  },
  {
    name: 'relay→service: 503 three times, past the relay’s own retries (the relay answers 502)',
    sandboxFaults: { '/orders/new': [status(503), status(503), status(503)] },
    finalState: 'paid',
    states: PAID_STATES,
    events: PAID_EVENTS,
  },
  {
    name: 'relay→service: 500, then 429 with Retry-After: 1',
    sandboxFaults: { '/orders/new': [status(500), status(429, { 'retry-after': '1' })] },
    finalState: 'paid',
    states: PAID_STATES,
    events: PAID_EVENTS,
  },
  {
    // The relay gives the service 10 s an attempt (RELAY_SERVICE_CLIENT in relay-config.ts).
    name: 'relay→service: the create answer is held past the relay’s 10 s time-out, until it retries',
    sandboxFaults: { '/orders/new': [held] },
    finalState: 'paid',
    states: PAID_STATES,
    events: PAID_EVENTS,
  },
  {
    name: 'relay→service: the service is offline, then back, while the element retries',
    startsOffline: 'sandbox',
    during: async ({ stack }) => {
      await eventually(
        'the relay to report the service unreachable',
        () => stack.relayEvents.some((event) => event.type === 'upstream_error'),
        { timeoutMs: STATE_TIMEOUT_MS },
      );
      stack.sandboxProxy.setOffline(false);
    },
    finalState: 'paid',
    states: PAID_STATES,
    events: PAID_EVENTS,
  },
  {
    name: 'relay→service: lookups answered 503 and reset while the payer approves',
    sandboxFaults: { '/orders/lookup': [status(503), status(503), status(503), reset] },
    finalState: 'paid',
    states: PAID_STATES,
    events: PAID_EVENTS,
  },
  {
    name: 'relay→service: the payer never answers and lookups fail: timeout, order kept',
    number: NEVER_ANSWERS,
    attributes: { 'poll-timeout': '9000' },
    sandboxFaults: { '/orders/lookup': [status(503), status(503), status(503)] },
    finalState: 'timeout',
    states: ['submitting', 'requires_action', 'timeout'],
    events: { 'pay-submit': 1, 'pay-created': 1, 'pay-requires-action': 1, 'pay-timeout': 1 },
  },
];

const FINAL_TITLES: Record<FinalState, string> = {
  paid: EN_STRINGS.paidTitle,
  failed: EN_STRINGS.failedTitle,
  timeout: EN_STRINGS.timeoutTitle,
};

function countRequests(stack: CheckoutStack, path: string): number {
  return stack.relayProxy.requests.filter((request) => request.path.startsWith(path)).length;
}

function createdOrderId(stack: CheckoutStack): string {
  const created = stack.relayEvents.find((event) => event.type === 'order_created');
  assert.ok(created?.type === 'order_created', 'the relay created an order');
  return created.orderId;
}

/** The payment status as the sandbox holds it, read in process (it settles by the clock when read). */
async function sandboxPaymentStatus(sandbox: Sandbox, orderId: string): Promise<string> {
  const response = await sandbox.handle(
    new Request('http://sandbox.test/orders/lookup', {
      method: 'POST',
      headers: { authorization: `Bearer ${SANDBOX_KEYS.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ order_id: orderId }),
    }),
  );
  const { order } = (await response.json()) as { order: { payment: { status: string } } };
  return order.payment.status;
}

let browser: Browser;

before(async () => {
  browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS, headless: true });
});

after(() => browser?.close());

describe('faults on the wire: one order per attempt, the right final state, each event once', {
  concurrency: 4,
}, () => {
  for (const row of FAULT_CASES) {
    it(row.name, { timeout: 150_000 }, async (t) => {
      const stack = await startCheckoutStack({
        approveAfterMs: row.approveAfterMs ?? 1500,
        attributes: { ...FAST_POLLS, ...row.attributes },
        ...(row.relayFaults ? { relayFaults: scriptedFaults(row.relayFaults) } : {}),
        ...(row.sandboxFaults ? { sandboxFaults: scriptedFaults(row.sandboxFaults) } : {}),
      });
      const context = await browser.newContext();
      t.after(async () => {
        await context.close();
        await stack.close();
      });
      const page = await context.newPage();
      const pageErrors: string[] = [];
      const sentKeys: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(error.message));
      page.on('request', (request) => {
        if (request.url().endsWith(CHECKOUT_URLS.create)) {
          sentKeys.push(request.headers()['idempotency-key'] ?? '(none)');
        }
      });
      await page.goto(stack.pageUrl);
      const checkout = page.locator('pay-checkout');
      await checkout.locator('[name="customer_name"]').fill(SHOPPER.name);
      await checkout.locator('[name="number"]').fill(row.number ?? SHOPPER.number);
      if (row.startsOffline)
        (row.startsOffline === 'relay' ? stack.relayProxy : stack.sandboxProxy).setOffline(true);
      await checkout.locator('button[type="submit"]').click();
      await row.during?.({ page, context, stack });
      await page.locator(`pay-checkout[state="${row.finalState}"]`).waitFor({ timeout: STATE_TIMEOUT_MS });
      // Room for a late duplicate (a poll, a retry) to show itself before counting: a window in which
      // nothing may happen, not a wait for something; a slow machine can only hide a duplicate here.
      await wait(2500);

      // Exactly one order for the attempt, and every create carried the attempt's one key.
      assert.equal(stack.sandbox.createdOrderCount, 1, 'one order in the sandbox');
      const orderId = createdOrderId(stack);
      const answeredOrders = stack.relayEvents.flatMap((event) =>
        event.type === 'order_created' ? [event.orderId] : [],
      );
      assert.deepEqual(new Set(answeredOrders), new Set([orderId]), 'every create answered the one order');
      assert.ok(sentKeys.length >= 1);
      assert.equal(new Set(sentKeys).size, 1, `one Idempotency-Key for the attempt: ${sentKeys.join(', ')}`);

      // The fault happened: every scripted fault was used, then a request went through.
      for (const [proxy, routes] of [
        [stack.relayProxy, row.relayFaults],
        [stack.sandboxProxy, row.sandboxFaults],
      ] as const) {
        for (const [ending, plans] of Object.entries(routes ?? {})) {
          const seen = proxy.requests.filter((request) => request.path.split('?')[0]?.endsWith(ending));
          assert.ok(
            seen.length > (plans?.length ?? 0),
            `${ending}: ${seen.length} requests for ${plans?.length} faults`,
          );
        }
      }
      for (const plan of [
        ...Object.values(row.relayFaults ?? {}),
        ...Object.values(row.sandboxFaults ?? {}),
      ]) {
        for (const step of plan ?? []) {
          if (step.kind === 'cut-after-upstream' || step.kind === 'reset-after-upstream') {
            assert.ok(
              [...stack.relayProxy.requests, ...stack.sandboxProxy.requests].some(
                (request) => request.fault === step.kind && request.upstreamStatus === 200,
              ),
              `${step.kind}: the upstream acted before the answer was lost`,
            );
          }
        }
      }

      // The right final state, shown.
      assert.equal(await checkout.getAttribute('state'), row.finalState);
      assert.equal(
        (await checkout.locator('.status h2').textContent())?.trim(),
        FINAL_TITLES[row.finalState],
      );
      if (row.finalState !== 'failed')
        assert.equal(await checkout.locator('dd').first().textContent(), orderId);
      assert.equal(
        await sandboxPaymentStatus(stack.sandbox, orderId),
        row.finalState === 'paid' ? 'paid' : row.finalState === 'failed' ? 'failed' : 'requires_action',
      );

      // Each event once, and the states in order.
      const events = await page.evaluate(
        () => (window as unknown as { __payEvents: RecordedPayEvent[] }).__payEvents,
      );
      for (const name of [
        'pay-submit',
        'pay-created',
        'pay-requires-action',
        'pay-paid',
        'pay-failed',
        'pay-timeout',
        'pay-error',
      ] as const) {
        assert.equal(
          events.filter((event) => event.type === name).length,
          row.events[name] ?? 0,
          `${name} count`,
        );
      }
      const states = events
        .filter((event) => event.type === 'pay-state-change')
        .map((event) => event.detail.state);
      assert.deepEqual(states, row.states);
      for (const event of events) {
        if ('orderId' in event.detail)
          assert.equal(event.detail.orderId, orderId, `${event.type} names the order`);
      }
      assert.deepEqual(pageErrors, []);
    });
  }
});
