/**
 * Why a payment failed reaches the browser: the sandbox sets
 * `order.payment.failure_code` (`declined`, `insufficient_funds`) and the
 * relay's answers carry it on a failed payment, and nothing else of the
 * service's payment. A reason a fuller service adds is dropped, not passed
 * on. Real `Request`s to the relay in front of an in-process sandbox whose
 * clock the test moves, so the test numbers settle without waiting.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createAnswerSchema } from '../../../src/shared/wire.js';
import { customerPayingFrom } from '../../fixtures/checkout-data.js';
import { CLIENT, createRequest, createTestRelay, lookupRequest } from '../../fixtures/relay.js';
import { clockReading } from '../../fixtures/relay-clock.js';
import { APPROVE_AFTER_MS, sandboxFetch, sandboxWithClock } from '../../fixtures/sandbox.js';

const CART = { items: [{ sku: 'tote', quantity: 1 }] };

/** A relay in front of a sandbox with a hand-moved clock; `fetch` may stand a fuller service in between. */
function shop(fetch: typeof globalThis.fetch = sandboxFetch) {
  const served = sandboxWithClock();
  const relay = createTestRelay({
    baseUrl: served.url,
    fetch,
    // The relay's time is the sandbox's: a lookup 6 s later is not one that may share the last read.
    clock: clockReading(() => served.clock.now),
  });
  /** Creates an order paying from `localNumber`; resolves to a lookup of it through the relay. */
  async function payFrom(localNumber: string) {
    const answer = await relay.create(
      createRequest({ ...customerPayingFrom(localNumber), cart: CART }),
      CLIENT,
    );
    const created = createAnswerSchema.parse(await answer.json());
    const lookUp = async () => {
      const response = await relay.lookup(
        lookupRequest({ order_id: created.order.id, lookup_token: created.lookup_token }),
        CLIENT,
      );
      assert.equal(response.status, 200);
      return (await response.json()) as { order: { payment: Record<string, unknown> } };
    };
    return { orderId: created.order.id, lookUp };
  }
  return { ...served, payFrom };
}

describe('the relay passes on why a payment failed', () => {
  for (const [number, reason] of [
    ['0244000002', 'declined'],
    ['0244000004', 'insufficient_funds'],
  ] as const) {
    it(`${number}: payment { status: failed, failure_code: ${reason} }, and no other payment field`, async () => {
      const { clock, payFrom } = shop();
      const { lookUp } = await payFrom(number);
      assert.deepEqual(
        (await lookUp()).order.payment,
        { status: 'requires_action' },
        'no reason while pending',
      );
      clock.now += APPROVE_AFTER_MS;
      const { order } = await lookUp();
      assert.deepEqual(order.payment, { status: 'failed', failure_code: reason });
      assert.deepEqual(Object.keys(order).sort(), ['amount', 'id', 'payment', 'status']);
    });
  }

  it('carries the reason the control surface declined with, and none for a paid payment', async () => {
    const { sandbox, payFrom } = shop();
    const declined = await payFrom('0241110001');
    sandbox.decline(declined.orderId, 'insufficient_funds');
    assert.deepEqual((await declined.lookUp()).order.payment, {
      status: 'failed',
      failure_code: 'insufficient_funds',
    });
    const paid = await payFrom('0241110002');
    sandbox.approve(paid.orderId);
    assert.deepEqual((await paid.lookUp()).order.payment, { status: 'paid' });
  });

  it('drops a reason a fuller service knows and the checkout does not, and any reason on a payment that did not fail', async () => {
    // A fuller service between the relay and the sandbox: its own failure codes and payment fields.
    let fullerPayment: Record<string, unknown> = {};
    const fullerService: typeof fetch = async (input, init) => {
      const answer = await sandboxFetch(input, init);
      if (!String(input).endsWith('/orders/lookup')) return answer;
      const body = await answer.json();
      Object.assign(body.order.payment, fullerPayment);
      return Response.json(body, { status: answer.status });
    };
    const { sandbox, payFrom } = shop(fullerService);
    const failed = await payFrom('0241110003');
    sandbox.decline(failed.orderId);
    fullerPayment = {
      failure_code: 'suspected_fraud',
      payer_msisdn: '+233241110003',
      reason_text: 'Flagged',
    };
    assert.deepEqual((await failed.lookUp()).order.payment, { status: 'failed' });
    const paid = await payFrom('0241110004');
    sandbox.approve(paid.orderId);
    fullerPayment = { failure_code: 'declined' };
    assert.deepEqual((await paid.lookUp()).order.payment, { status: 'paid' });
  });
});
