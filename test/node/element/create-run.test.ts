/**
 * CreateRun, the element's create of one attempt, against the real relay
 * (in front of the in-process sandbox) called through an injected `fetch`:
 * which run may report, and what each refusal means for the attempt's key.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createOrder } from '../../../src/element/checkout-api.js';
import { type AttemptFacts, type DraftAttempt, draftAttempt } from '../../../src/element/checkout-attempt.js';
import type { FieldName, FieldRefusal } from '../../../src/element/checkout-form.js';
import { CreateRun } from '../../../src/element/create-run.js';
import type { PayErrorDetail } from '../../../src/element/events.js';
import type { CheckoutRelay } from '../../../src/server/index.js';
import type { CheckoutIntent, OrderAmount } from '../../../src/shared/wire.js';
import { customerPayingFrom } from '../../fixtures/checkout-data.js';
import { CLIENT, intent, relayStack } from '../../fixtures/relay.js';

const CREATE_URL = 'https://shop.example/api/checkout/orders';
const SETTINGS = {
  createUrl: CREATE_URL,
  lookupUrl: `${CREATE_URL}/lookup`,
  amount: 25_000,
  currency: 'ghs',
};
/** A product the shop's `priceCart` does not sell: its CartError names `cart.items[0].sku`. */
const UNKNOWN_PRODUCT = { items: [{ sku: 'blue-tote', quantity: 1 }] };

const { relayWith } = relayStack();

/** A fresh attempt for `overrides` of the test intent, with its own key. */
function draft(overrides: Record<string, unknown> = {}): AttemptFacts<DraftAttempt> {
  const attempt = draftAttempt(intent(overrides) as unknown as CheckoutIntent, SETTINGS, Date.now());
  assert.equal(typeof attempt, 'object');
  return attempt as AttemptFacts<DraftAttempt>;
}

/** What a run reported, in order. */
type Report =
  | { created: string; orderId: string }
  | { field: FieldName; refusal: FieldRefusal | undefined }
  | { error: PayErrorDetail; cartMessage: string | undefined; newKey: boolean }
  | { amountChanged: OrderAmount; error: PayErrorDetail };

/**
 * A CreateRun sending through `fetch` (the relay's own handler by default)
 * with `retries` automatic retries, and every report written down.
 */
function createRun(options: { relay?: CheckoutRelay; fetch?: typeof fetch; retries?: number } = {}) {
  const relay = options.relay ?? relayWith();
  const toRelay = ((input: RequestInfo | URL, init?: RequestInit) =>
    relay.create(new Request(input, init), CLIENT)) as typeof fetch;
  const sent: { key: string | null; body: string }[] = [];
  const transport = options.fetch ?? toRelay;
  const reports: Report[] = [];
  const run = new CreateRun({
    create: (attempt, signal) =>
      createOrder(CREATE_URL, attempt.body, attempt.idempotencyKey, {
        fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
          sent.push({ key: new Headers(init?.headers).get('Idempotency-Key'), body: String(init?.body) });
          return transport(input, init);
        }) as typeof fetch,
        retries: options.retries ?? 0,
        signal,
      }),
    onCreated: (attempt, { order }) => reports.push({ created: attempt.idempotencyKey, orderId: order.id }),
    onFieldRefused: (field, refusal) => reports.push({ field, refusal }),
    onFailed: (error, cartMessage, newKey) => reports.push({ error, cartMessage, newKey }),
    onAmountChanged: (amountChanged, error) => reports.push({ amountChanged, error }),
  });
  return { run, relay, toRelay, sent, reports };
}

describe('CreateRun', () => {
  it('reports the order of its latest run only: starting again aborts the run in flight', async () => {
    const firstSignal: AbortSignal[] = [];
    const { run, toRelay, reports } = createRun({
      // The first create hangs on the wire until it is aborted; the next goes through.
      fetch: ((input: RequestInfo | URL, init?: RequestInit) => {
        if (firstSignal.length > 0) return toRelay(input, init);
        const signal = init?.signal as AbortSignal;
        firstSignal.push(signal);
        return new Promise<Response>((_resolve, reject) => {
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        });
      }) as typeof fetch,
    });
    const first = draft();
    const second = draft();
    const firstRun = run.start(first, true);
    assert.equal(run.running, true);
    const secondRun = run.start(second, true);
    assert.equal(firstSignal[0]?.aborted, true, 'the earlier create is aborted');
    await Promise.all([firstRun, secondRun]);
    assert.equal(reports.length, 1);
    assert.equal((reports[0] as { created: string }).created, second.idempotencyKey);
    assert.equal(run.running, false);
  });

  it('a price the real relay changed (409 amount_changed): its new amount reported, retryable, never retried, no order', async () => {
    const { run, sent, reports } = createRun({ retries: 3 });
    await run.start(draft({ expected_amount: { currency: 'ghs', value: 1 } }), true);
    assert.equal(sent.length, 1, 'not sent again by itself: the shopper sees the new amount first');
    const [report] = reports as { amountChanged: OrderAmount; error: PayErrorDetail }[];
    assert.equal(report?.error.code, 'amount_changed');
    assert.equal(report?.error.retryable, true);
    assert.equal(report?.amountChanged.currency, 'ghs');
    assert.ok(Number.isSafeInteger(report?.amountChanged.value) && report?.amountChanged.value !== 1);
    // The relay's own price: the same create at that amount makes the order.
    await run.start(draft({ expected_amount: report?.amountChanged }), true);
    assert.ok(reports[1] && 'created' in reports[1], JSON.stringify(reports[1]));
  });

  it('reports nothing once stopped, and the same create may be sent again under its key', async () => {
    const { run, sent, reports } = createRun();
    const attempt = draft();
    const stopped = run.start(attempt, true);
    run.stop();
    assert.equal(run.running, false);
    await stopped;
    assert.deepEqual(reports, [], 'a stopped run says nothing');
    await run.start(attempt);
    assert.equal(reports.length, 1);
    assert.ok(reports[0] && 'created' in reports[0]);
    assert.deepEqual(new Set(sent.map((request) => request.key)), new Set([attempt.idempotencyKey]));
  });

  describe('when the relay refuses a field', () => {
    it('sends the shopper back to that field, with no error to show', async () => {
      const { run, reports } = createRun();
      // A line break in the name: the relay's checks hold, whatever the form let through.
      await run.start(draft(customerPayingFrom('0241234567', 'Ama\nMensah')), true);
      assert.deepEqual(reports, [{ field: 'customer_name', refusal: undefined }]);
    });

    it('names the number and the wait when it had too many prompts', async () => {
      const relay = relayWith({ rateLimit: { promptsPerNumber: { limit: 1, windowMinutes: 10 } } });
      const { run, reports } = createRun({ relay });
      const number = customerPayingFrom('0209876555');
      await run.start(draft(number), true);
      await run.start(draft(number), true);
      assert.ok(reports[0] && 'created' in reports[0]);
      assert.deepEqual(reports[1], {
        field: 'number',
        refusal: { error: 'numberTooManyPrompts', waitMinutes: 10 },
      });
    });
  });

  describe('when the merchant refuses the cart (CartError)', () => {
    const refusal = { code: 'cart_rejected', message: 'No such product.' };

    it('on the attempt’s only request: nothing exists under the key, so it may take a new one', async () => {
      const { run, sent, reports } = createRun();
      await run.start(draft({ cart: UNKNOWN_PRODUCT }), true);
      assert.equal(sent.length, 1);
      assert.deepEqual(reports, [
        { error: { ...refusal, retryable: false }, cartMessage: 'No such product.', newKey: true },
      ]);
    });

    it('after a retry in the same run: the key and request are kept, one try may have reached the service', async () => {
      const { run, toRelay, sent, reports } = createRun({
        retries: 1,
        // The first try is lost on the wire: a proxy answers 503 for it.
        fetch: ((input: RequestInfo | URL, init?: RequestInit) =>
          sent.length === 1
            ? Promise.resolve(
                Response.json(
                  { error: { type: 'api_error', code: 'service_unavailable', message: 'Try again.' } },
                  { status: 503 },
                ),
              )
            : toRelay(input, init)) as typeof fetch,
      });
      await run.start(draft({ cart: UNKNOWN_PRODUCT }), true);
      assert.equal(sent.length, 2);
      assert.deepEqual(reports, [
        { error: { ...refusal, retryable: true }, cartMessage: 'No such product.', newKey: false },
      ]);
    });

    it('on a request sent again ("Try again", a reload): the key and request are kept', async () => {
      const { run, reports } = createRun();
      await run.start(draft({ cart: UNKNOWN_PRODUCT }));
      assert.deepEqual(reports, [
        { error: { ...refusal, retryable: true }, cartMessage: 'No such product.', newKey: false },
      ]);
    });
  });

  it('reports any other failure as the relay described it, keeping the key', async () => {
    const { run, reports } = createRun({
      fetch: (async () =>
        Response.json(
          { error: { type: 'api_error', code: 'service_unavailable', message: 'Try again.' } },
          { status: 503 },
        )) as typeof fetch,
    });
    await run.start(draft(), true);
    assert.deepEqual(reports, [
      {
        error: { code: 'service_unavailable', message: 'Try again.', retryable: true },
        cartMessage: undefined,
        newKey: false,
      },
    ]);
  });
});
