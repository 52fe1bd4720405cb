/**
 * Conformance of the sandbox to the service's states and transitions, settled
 * lazily by the sandbox's clock. Every call goes to `sandbox.handle` with a real `Request`, in
 * process (test/fixtures/sandbox.ts); sandbox-node-adapter.test.ts covers the
 * Node listener over real HTTP. Idempotency and memory bounds have their own
 * file, sandbox-idempotency.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SANDBOX_TEST_NUMBERS, SandboxControlError } from '../../../src/sandbox/index.js';
import {
  APPROVE_AFTER_MS,
  call,
  orderInput,
  START,
  sandboxWithClock,
  withNumber,
} from '../../fixtures/sandbox.js';

let shared: Awaited<ReturnType<typeof sandboxWithClock>> | undefined;
async function _sharedSandbox() {
  shared ??= await sandboxWithClock();
  return shared;
}

describe("the service's states and transitions, settled lazily by the clock", () => {
  it('an order created without execute_payment requires payment, its payment not_started, for ever', async () => {
    const { url, clock } = await sandboxWithClock();
    const { order } = (await call(url, '/orders/new', orderInput({ execute_payment: false }))).body;
    assert.equal(order.status, 'requires_payment');
    assert.equal(order.payment.status, 'not_started');
    assert.equal('otp_id' in order.payment, false);
    clock.now += 365 * 24 * 3600 * 1000;
    const later = (await call(url, '/orders/lookup', { order_id: order.id })).body.order;
    assert.equal(later.payment.status, 'not_started');
  });

  it('a normal number: requires_action until the approval delay, then paid and completed at the approval time', async () => {
    const { url, clock } = await sandboxWithClock();
    const { order } = (await call(url, '/orders/new', orderInput())).body;
    clock.now += APPROVE_AFTER_MS - 1;
    const pending = (await call(url, '/orders/lookup', { order_id: order.id })).body.order;
    assert.equal(pending.status, 'requires_payment');
    assert.equal(pending.payment.status, 'requires_action');
    assert.equal('completed_at' in pending, false);
    clock.now += 60_000;
    const paid = (await call(url, '/orders/lookup', { order_id: order.id })).body.order;
    assert.equal(paid.status, 'completed');
    assert.equal(paid.payment.status, 'paid');
    assert.equal(paid.completed_at, new Date(START + APPROVE_AFTER_MS).toISOString());
    assert.equal(paid.payment.settled_at, paid.completed_at);
  });

  const failures = [
    [SANDBOX_TEST_NUMBERS.declines, 'declined'],
    [SANDBOX_TEST_NUMBERS.insufficientFunds, 'insufficient_funds'],
  ] as const;
  for (const [number, failureCode] of failures) {
    it(`${number}: failed (${failureCode}) after the delay; the order stays requires_payment`, async () => {
      const { url, clock } = await sandboxWithClock();
      const { order } = (await call(url, '/orders/new', withNumber(number))).body;
      clock.now += APPROVE_AFTER_MS - 1;
      assert.equal(
        (await call(url, '/orders/lookup', { order_id: order.id })).body.order.payment.status,
        'requires_action',
      );
      clock.now += 1;
      const failed = (await call(url, '/orders/lookup', { order_id: order.id })).body.order;
      assert.equal(failed.payment.status, 'failed');
      assert.equal(failed.payment.failure_code, failureCode);
      assert.equal(failed.status, 'requires_payment');
      assert.equal('completed_at' in failed, false);
    });
  }

  it(`${SANDBOX_TEST_NUMBERS.neverAnswers}: stays requires_action for ever`, async () => {
    const { url, clock } = await sandboxWithClock();
    const { order } = (await call(url, '/orders/new', withNumber(SANDBOX_TEST_NUMBERS.neverAnswers))).body;
    clock.now += 10 * 365 * 24 * 3600 * 1000;
    const later = (await call(url, '/orders/lookup', { order_id: order.id })).body.order;
    assert.equal(later.payment.status, 'requires_action');
    assert.equal(later.status, 'requires_payment');
  });

  it('the test numbers work on any network', async () => {
    const { url, clock } = await sandboxWithClock();
    const input = orderInput({
      payment_method_data: {
        type: 'mobile_money',
        mobile_money: { issuer: 'telecel', number: SANDBOX_TEST_NUMBERS.declines },
      },
    });
    const { order } = (await call(url, '/orders/new', input)).body;
    clock.now += APPROVE_AFTER_MS;
    assert.equal(
      (await call(url, '/orders/lookup', { order_id: order.id })).body.order.payment.status,
      'failed',
    );
  });

  it('approve() settles at once, completed_at = now; decline() fails at once with the reason', async () => {
    const { url, clock, sandbox } = await sandboxWithClock();
    const first = (await call(url, '/orders/new', withNumber(SANDBOX_TEST_NUMBERS.neverAnswers))).body.order;
    const second = (await call(url, '/orders/new', orderInput())).body.order;
    const third = (await call(url, '/orders/new', orderInput())).body.order;
    clock.now += 1500;
    const approved = sandbox.approve(first.id);
    assert.deepEqual(approved, {
      id: first.id,
      status: 'completed',
      completed_at: new Date(START + 1500).toISOString(),
      payment: { status: 'paid' },
    });
    assert.deepEqual(sandbox.decline(second.id), {
      id: second.id,
      status: 'requires_payment',
      payment: { status: 'failed' },
    });
    sandbox.decline(third.id, 'insufficient_funds');
    const looked = (await call(url, '/orders/lookup', { order_id: third.id })).body.order;
    assert.equal(looked.payment.failure_code, 'insufficient_funds');
    // Later delays change nothing: the payer already answered.
    clock.now += APPROVE_AFTER_MS * 2;
    assert.equal(
      (await call(url, '/orders/lookup', { order_id: second.id })).body.order.payment.status,
      'failed',
    );
  });

  it('approve()/decline() throw for an unknown order and for a payment that is final or not started', async () => {
    const { url, clock, sandbox } = await sandboxWithClock();
    const paid = (await call(url, '/orders/new', orderInput())).body.order;
    const notStarted = (await call(url, '/orders/new', orderInput({ execute_payment: false }))).body.order;
    clock.now += APPROVE_AFTER_MS;
    const kindOf = (action: () => unknown) => {
      try {
        action();
      } catch (error) {
        assert.ok(error instanceof SandboxControlError);
        return error.kind;
      }
      return 'no error';
    };
    assert.equal(
      kindOf(() => sandbox.approve('or_000000000000000000000000')),
      'resourceNotFound',
    );
    assert.equal(
      kindOf(() => sandbox.decline(paid.id)),
      'paymentNotPending',
      'the delay passed: it is paid',
    );
    assert.equal(
      kindOf(() => sandbox.approve(notStarted.id)),
      'paymentNotPending',
    );
  });

  it('the OTP follows its payment (pending, verified, failed); the chime exists once paid', async () => {
    const { url, sandbox } = await sandboxWithClock();
    const paid = (await call(url, '/orders/new', orderInput())).body.order;
    const failed = (await call(url, '/orders/new', orderInput())).body.order;
    const otpOf = async (id: string) => (await call(url, '/otp/lookup', { otp_id: id })).body.otp.status;
    assert.equal(await otpOf(paid.payment.otp_id), 'pending');
    assert.equal('chime_id' in paid.payment, false);
    sandbox.approve(paid.id);
    sandbox.decline(failed.id);
    assert.equal(await otpOf(paid.payment.otp_id), 'verified');
    assert.equal(await otpOf(failed.payment.otp_id), 'failed');
    const after = (await call(url, '/orders/lookup', { order_id: paid.id })).body.order;
    const chime = (await call(url, '/chimes/lookup', { chime_id: after.payment.chime_id })).body.chime;
    assert.deepEqual(chime, {
      id: after.payment.chime_id,
      order_id: paid.id,
      event: 'payment.paid',
      amount: { currency: 'ghs', value: 19_500 },
      created_at: after.completed_at,
    });
  });
});
