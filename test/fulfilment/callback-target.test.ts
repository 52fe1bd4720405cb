/**
 * The merchant's callbacks as a delivery target: each outcome goes to its
 * callback (a late payment to `onPaid`), an outcome without one has no
 * receiver, and what a callback returns or throws is what the delivery sees.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FulfilledOrder } from '../../src/server/fulfilment/fulfilled-order.js';
import { callbackTarget } from '../../src/server/fulfilment/targets/callbacks.js';

/** A settled order of `outcome`, as far as the target reads it. */
function orderOf(outcome: FulfilledOrder['outcome'], previousOutcome: 'expired' | null = null) {
  return { id: `or_${outcome}`, outcome, previousOutcome } as FulfilledOrder;
}

describe('callbackTarget', () => {
  it('hands each order to the callback of its outcome, a late payment to onPaid', async () => {
    const calls: string[] = [];
    const target = callbackTarget({
      onPaid: (order) => {
        calls.push(`onPaid ${order.id} ${order.previousOutcome}`);
      },
      onFailed: async (order) => {
        calls.push(`onFailed ${order.id}`);
      },
    });
    assert.deepEqual(
      (['paid', 'failed', 'expired'] as const).map((outcome) => target.receiverOf(outcome)),
      ['onPaid', 'onFailed', undefined],
    );
    await target.deliver(orderOf('paid'));
    await target.deliver(orderOf('paid', 'expired'));
    await target.deliver(orderOf('failed'));
    assert.deepEqual(calls, ['onPaid or_paid null', 'onPaid or_paid expired', 'onFailed or_failed']);
  });

  it("passes on the callback's promise and its throw, and calls it on nothing of the merchant's", async () => {
    let self: unknown = 'unset';
    const target = callbackTarget({
      onPaid() {
        self = this;
        throw new Error('out of stock');
      },
      onExpired: () => Promise.reject(new Error('later')),
    });
    assert.throws(() => target.deliver(orderOf('paid')), /out of stock/);
    assert.equal(self, undefined);
    await assert.rejects(Promise.resolve(target.deliver(orderOf('expired'))), /later/);
  });
});
