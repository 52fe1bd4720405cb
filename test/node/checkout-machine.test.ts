import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CHECKOUT_STATE,
  type CheckoutEvent,
  type CheckoutState,
  isCheckoutState,
  transition,
} from '../../src/element/checkout-machine.js';

const ALL_STATES = Object.values(CHECKOUT_STATE);

function run(state: CheckoutState, ...events: CheckoutEvent[]): CheckoutState {
  return events.reduce(transition, state);
}

describe('checkout machine', () => {
  it('walks the happy path: idle, submitting, requires_action, paid', () => {
    assert.equal(
      run(
        'idle',
        { type: 'submit' },
        { type: 'created', paymentStatus: 'requires_action' },
        { type: 'polled', paymentStatus: 'paid' },
      ),
      'paid',
    );
  });

  it('goes straight to paid or failed when the create answer is already final', () => {
    assert.equal(run('submitting', { type: 'created', paymentStatus: 'paid' }), 'paid');
    for (const status of ['failed', 'cancelled', 'expired']) {
      assert.equal(run('submitting', { type: 'created', paymentStatus: status }), 'failed');
    }
  });

  it('keeps waiting on pending and unknown payment statuses (contract §3)', () => {
    for (const status of ['requires_action', 'not_started', 'processing', 'something_new', '']) {
      assert.equal(run('requires_action', { type: 'polled', paymentStatus: status }), 'requires_action');
    }
  });

  it('ignores a second submit while one is in flight, and every submit after the order exists', () => {
    for (const state of ['submitting', 'requires_action', 'paid', 'failed', 'timeout'] as const) {
      assert.equal(transition(state, { type: 'submit' }), state, state);
    }
  });

  it('retries a failed create from error, and reads an order again from error', () => {
    assert.equal(run('submitting', { type: 'create_failed' }), 'error');
    assert.equal(transition('error', { type: 'submit' }), 'submitting');
    assert.equal(transition('error', { type: 'check_again' }), 'requires_action');
  });

  it('goes back to the form when the relay refuses the input', () => {
    assert.equal(transition('submitting', { type: 'rejected' }), 'idle');
  });

  it('treats timeout as not final: only check_again (same order) or a restart leave it', () => {
    assert.equal(transition('requires_action', { type: 'timed_out' }), 'timeout');
    assert.equal(transition('timeout', { type: 'check_again' }), 'requires_action');
    assert.equal(transition('timeout', { type: 'polled', paymentStatus: 'paid' }), 'timeout');
    assert.equal(transition('timeout', { type: 'submit' }), 'timeout');
    assert.equal(transition('timeout', { type: 'restart' }), 'idle');
  });

  it('keeps paid and failed final: polls, retries and timeouts change nothing', () => {
    const events: CheckoutEvent[] = [
      { type: 'submit' },
      { type: 'created', paymentStatus: 'requires_action' },
      { type: 'polled', paymentStatus: 'failed' },
      { type: 'polled', paymentStatus: 'paid' },
      { type: 'timed_out' },
      { type: 'check_again' },
      { type: 'create_failed' },
      { type: 'poll_failed' },
    ];
    for (const state of ['paid', 'failed'] as const) {
      for (const event of events) assert.equal(transition(state, event), state, `${state} + ${event.type}`);
    }
  });

  it('restarts from every state but submitting, where a prompt may already be on its way', () => {
    for (const state of ALL_STATES) {
      assert.equal(transition(state, { type: 'restart' }), state === 'submitting' ? 'submitting' : 'idle');
      assert.equal(
        transition(state, { type: 'resume' }),
        state === 'submitting' ? 'submitting' : 'requires_action',
      );
    }
  });

  it('goes to error from everywhere when misconfigured', () => {
    for (const state of ALL_STATES) assert.equal(transition(state, { type: 'misconfigured' }), 'error');
  });

  it('throws on a state it does not know, including inherited property names', () => {
    for (const state of ['done', 'toString', '__proto__', '']) {
      assert.throws(() => transition(state as CheckoutState, { type: 'submit' }), TypeError);
      assert.equal(isCheckoutState(state), false);
    }
    for (const state of ALL_STATES) assert.equal(isCheckoutState(state), true);
  });

  it('never leaves the set of states, whatever the sequence of events', () => {
    const events: CheckoutEvent[] = [
      { type: 'submit' },
      { type: 'created', paymentStatus: 'requires_action' },
      { type: 'created', paymentStatus: 'paid' },
      { type: 'rejected' },
      { type: 'create_failed' },
      { type: 'polled', paymentStatus: 'failed' },
      { type: 'polled', paymentStatus: 'requires_action' },
      { type: 'poll_failed' },
      { type: 'timed_out' },
      { type: 'check_again' },
      { type: 'resume' },
      { type: 'restart' },
    ];
    let seed = 7;
    for (let walk = 0; walk < 200; walk++) {
      let state: CheckoutState = 'idle';
      for (let step = 0; step < 30; step++) {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        const event = events[seed % events.length] as CheckoutEvent;
        const next = transition(state, event);
        assert.ok(isCheckoutState(next));
        // Leaving paid or failed takes a deliberate new attempt.
        if ((state === 'paid' || state === 'failed') && next !== state) {
          assert.ok(event.type === 'restart' || event.type === 'resume');
        }
        state = next;
      }
    }
  });
});
