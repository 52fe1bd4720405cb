import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CHECKOUT_STATE,
  type CheckoutEvent,
  type CheckoutState,
  type ErrorState,
  isCheckoutState,
  type MachineState,
  transition,
} from '../../../src/element/checkout-machine.js';

const ALL_STATES = Object.values(CHECKOUT_STATE);

/** The machine state of a name; `error` as a retryable create error unless given. */
function at(status: CheckoutState, error: Partial<ErrorState> = {}): MachineState {
  return status === 'error' ? { status, cause: 'create', retryable: true, ...error } : { status };
}

function run(state: CheckoutState | MachineState, ...events: CheckoutEvent[]): CheckoutState {
  return events.reduce(transition, typeof state === 'string' ? at(state) : state).status;
}

const CREATE_ERROR = at('error', { cause: 'create', retryable: true });
const REFUSED_CREATE = at('error', { cause: 'create', retryable: false });
const LOOKUP_ERROR = at('error', { cause: 'lookup', retryable: false });
const CONFIG_ERROR = at('error', { cause: 'config', retryable: false });

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

  it('keeps waiting on pending and unknown payment statuses, as the very same state', () => {
    const waiting = at('requires_action');
    for (const status of ['requires_action', 'not_started', 'processing', 'something_new', '']) {
      assert.equal(transition(waiting, { type: 'polled', paymentStatus: status }), waiting);
    }
  });

  it('ignores a second submit while one is in flight, and every submit after the order exists', () => {
    for (const status of ['submitting', 'requires_action', 'paid', 'failed', 'timeout'] as const) {
      const state = at(status);
      assert.equal(transition(state, { type: 'submit' }), state, status);
    }
  });

  it('says in error what failed: the create (retryable or not), a lookup, or the configuration', () => {
    assert.deepEqual(transition(at('submitting'), { type: 'create_failed', retryable: true }), CREATE_ERROR);
    assert.deepEqual(
      transition(at('submitting'), { type: 'create_failed', retryable: false }),
      REFUSED_CREATE,
    );
    assert.deepEqual(transition(at('requires_action'), { type: 'poll_failed' }), LOOKUP_ERROR);
    assert.deepEqual(transition(at('paid'), { type: 'misconfigured' }), CONFIG_ERROR);
  });

  it('retries a failed create from error, and reads an order again from error', () => {
    assert.equal(run('submitting', { type: 'create_failed', retryable: true }), 'error');
    assert.equal(transition(CREATE_ERROR, { type: 'submit' }).status, 'submitting');
    assert.equal(transition(LOOKUP_ERROR, { type: 'check_again' }).status, 'requires_action');
  });

  it('decides "Try again" in error by its cause: new form, same order, or nothing for a refusal', () => {
    assert.equal(transition(REFUSED_CREATE, { type: 'submit' }).status, 'idle');
    assert.equal(transition(LOOKUP_ERROR, { type: 'submit' }).status, 'requires_action');
    assert.equal(transition(CONFIG_ERROR, { type: 'submit' }), CONFIG_ERROR);
    // "Check again" only ever reads an order: a failed create has none.
    assert.equal(transition(CREATE_ERROR, { type: 'check_again' }), CREATE_ERROR);
    assert.equal(transition(CONFIG_ERROR, { type: 'check_again' }), CONFIG_ERROR);
  });

  it('carries the merchant’s message in error when the relay refused the cart, and "Try again" creates again', () => {
    const refusedCart = transition(at('submitting'), {
      type: 'create_failed',
      retryable: false,
      cartMessage: 'Sold out.',
    });
    assert.deepEqual(refusedCart, { status: 'error', cause: 'cart', retryable: false, message: 'Sold out.' });
    // Not retryable (nothing exists under the key): the session makes a new attempt before this move.
    assert.equal(transition(refusedCart, { type: 'submit' }).status, 'submitting');
    const mayExist = transition(at('submitting'), {
      type: 'create_failed',
      retryable: true,
      cartMessage: '',
    });
    assert.deepEqual(mayExist, { status: 'error', cause: 'cart', retryable: true, message: '' });
    assert.equal(transition(mayExist, { type: 'submit' }).status, 'submitting');
    assert.equal(transition(refusedCart, { type: 'check_again' }), refusedCart, 'no order to check');
    assert.equal(transition(refusedCart, { type: 'restart' }).status, 'idle');
  });

  it('goes back to the form when the relay refuses the input', () => {
    assert.equal(run('submitting', { type: 'rejected' }), 'idle');
  });

  it('treats timeout as not final: its own lookups, check_again (same order) or a restart leave it', () => {
    assert.equal(run('requires_action', { type: 'timed_out' }), 'timeout');
    assert.equal(run('timeout', { type: 'check_again' }), 'requires_action');
    // The timeout screen keeps looking the order up: an outcome ends it, a pending answer keeps it.
    assert.equal(run('timeout', { type: 'polled', paymentStatus: 'paid' }), 'paid');
    assert.equal(run('timeout', { type: 'polled', paymentStatus: 'failed' }), 'failed');
    assert.equal(run('timeout', { type: 'polled', paymentStatus: 'requires_action' }), 'timeout');
    assert.equal(run('timeout', { type: 'submit' }), 'timeout');
    assert.equal(run('timeout', { type: 'restart' }), 'idle');
  });

  it('keeps paid and failed final: polls, retries and timeouts change nothing', () => {
    const events: CheckoutEvent[] = [
      { type: 'submit' },
      { type: 'created', paymentStatus: 'requires_action' },
      { type: 'polled', paymentStatus: 'failed' },
      { type: 'polled', paymentStatus: 'paid' },
      { type: 'timed_out' },
      { type: 'check_again' },
      { type: 'create_failed', retryable: true },
      { type: 'poll_failed' },
    ];
    for (const status of ['paid', 'failed'] as const) {
      const state = at(status);
      for (const event of events) assert.equal(transition(state, event), state, `${status} + ${event.type}`);
    }
  });

  it('restarts from every state but submitting, where a prompt may already be on its way', () => {
    for (const status of ALL_STATES) {
      assert.equal(run(status, { type: 'restart' }), status === 'submitting' ? 'submitting' : 'idle');
      assert.equal(
        run(status, { type: 'resume' }),
        status === 'submitting' ? 'submitting' : 'requires_action',
      );
    }
  });

  it('shows the receipt of another order of the checkout paid first, from every state but submitting', () => {
    const otherPaid: CheckoutEvent = { type: 'other_paid', paymentStatus: 'paid' };
    for (const status of ALL_STATES) {
      // A create in flight answers first: its order must be known before the screen changes.
      assert.equal(run(status, otherPaid), status === 'submitting' ? 'submitting' : 'paid', status);
    }
    const paid = at('paid');
    assert.equal(transition(paid, otherPaid), paid, 'a second paid order changes nothing');
  });

  it('goes to error from everywhere when misconfigured', () => {
    for (const status of ALL_STATES) {
      assert.deepEqual(transition(at(status), { type: 'misconfigured' }), CONFIG_ERROR);
    }
  });

  it('throws on a state it does not know, including inherited property names', () => {
    for (const status of ['done', 'toString', '__proto__', '']) {
      assert.throws(() => transition({ status } as unknown as MachineState, { type: 'submit' }), TypeError);
      assert.equal(isCheckoutState(status), false);
    }
    assert.throws(() => transition(undefined as unknown as MachineState, { type: 'submit' }), TypeError);
    for (const status of ALL_STATES) assert.equal(isCheckoutState(status), true);
  });

  it('never leaves the set of states, whatever the sequence of events', () => {
    const events: CheckoutEvent[] = [
      { type: 'submit' },
      { type: 'created', paymentStatus: 'requires_action' },
      { type: 'created', paymentStatus: 'paid' },
      { type: 'rejected' },
      { type: 'create_failed', retryable: true },
      { type: 'create_failed', retryable: false },
      { type: 'polled', paymentStatus: 'failed' },
      { type: 'polled', paymentStatus: 'requires_action' },
      { type: 'poll_failed' },
      { type: 'timed_out' },
      { type: 'check_again' },
      { type: 'resume' },
      { type: 'restart' },
      { type: 'other_paid', paymentStatus: 'paid' },
    ];
    let seed = 7;
    for (let walk = 0; walk < 200; walk++) {
      let state: MachineState = at('idle');
      for (let step = 0; step < 30; step++) {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        const event = events[seed % events.length] as CheckoutEvent;
        const next = transition(state, event);
        assert.ok(isCheckoutState(next.status));
        // Only an error says why; it always does.
        if (next.status === 'error') assert.ok(['create', 'lookup'].includes(next.cause));
        // Leaving paid or failed takes a deliberate new attempt.
        if ((state.status === 'paid' || state.status === 'failed') && next !== state) {
          assert.ok(['restart', 'resume', 'other_paid'].includes(event.type));
        }
        // The first paid wins: another order's payment never moves a paid checkout.
        if (state.status === 'paid' && next !== state) assert.ok(event.type !== 'other_paid');
        state = next;
      }
    }
  });
});
