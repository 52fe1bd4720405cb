/**
 * The checkout as one value: the machine's state and the attempt it belongs
 * to are put together by `checkoutIn` only, which refuses a pair that
 * disagrees. Each phase of an attempt takes its own states; the fresh form
 * and a refusal hold no attempt.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type AttemptFacts,
  attemptBasics,
  checkoutIn,
  createdAttempt,
  draftAttempt,
  isStoredAttempt,
  settledAttempt,
} from '../../../src/element/checkout-attempt.js';
import type { MachineState } from '../../../src/element/checkout-machine.js';
import type { CheckoutIntent } from '../../../src/shared/wire.js';
import { checkoutIntent } from '../../fixtures/checkout-data.js';

const SETTINGS = {
  createUrl: '/api/checkout/orders',
  lookupUrl: '/api/checkout/lookup',
  amount: 5_000,
  currency: 'ghs',
};
const NOW = 1_700_000_000_000;

const draft = draftAttempt(checkoutIntent({ cart: null }) as unknown as CheckoutIntent, SETTINGS, NOW);
assert.ok(typeof draft === 'object', String(draft));
const facts = {
  draft,
  created: createdAttempt(attemptBasics(NOW, SETTINGS), 'or_attempt_1', 'token', NOW + 360_000),
  settled: settledAttempt(
    createdAttempt(attemptBasics(NOW, SETTINGS), 'or_attempt_2', 'token', NOW),
    'paid',
    undefined,
  ),
  none: undefined,
};

/** Every state the machine can be in, each error cause and retry included. */
const STATES: MachineState[] = [
  { status: 'idle' },
  { status: 'submitting' },
  { status: 'requires_action' },
  { status: 'timeout' },
  { status: 'paid' },
  { status: 'failed' },
  { status: 'error', cause: 'create', retryable: true },
  { status: 'error', cause: 'create', retryable: false },
  { status: 'error', cause: 'cart', retryable: true, message: 'Sold out.' },
  { status: 'error', cause: 'cart', retryable: false, message: 'Sold out.' },
  { status: 'error', cause: 'lookup', retryable: false },
  { status: 'error', cause: 'config', retryable: false },
];

/** A state as the tests name it: `error/cart`. */
function nameOf(state: MachineState): string {
  return state.status === 'error' ? `error/${state.cause}` : state.status;
}

/** Where each state puts each attempt: its phase, `none` (dropped) or `throws`. */
const EXPECTED: Record<string, Record<keyof typeof facts, string>> = {
  idle: { draft: 'none', created: 'none', settled: 'none', none: 'none' },
  submitting: { draft: 'draft', created: 'throws', settled: 'throws', none: 'throws' },
  requires_action: { draft: 'throws', created: 'created', settled: 'throws', none: 'throws' },
  timeout: { draft: 'throws', created: 'created', settled: 'throws', none: 'throws' },
  paid: { draft: 'throws', created: 'throws', settled: 'settled', none: 'throws' },
  failed: { draft: 'throws', created: 'throws', settled: 'settled', none: 'throws' },
  'error/create': { draft: 'draft', created: 'throws', settled: 'throws', none: 'throws' },
  // A cart refused on a first try keeps no attempt; after earlier tries, the draft under its key.
  'error/cart': { draft: 'draft', created: 'none', settled: 'none', none: 'none' },
  'error/lookup': { draft: 'throws', created: 'created', settled: 'throws', none: 'throws' },
  'error/config': { draft: 'none', created: 'none', settled: 'none', none: 'none' },
};

describe('a checkout: one value for the state and its attempt', () => {
  it('puts each attempt only in the states of its phase, and drops it where a state holds none', () => {
    for (const state of STATES) {
      for (const [given, attempt] of Object.entries(facts) as [
        keyof typeof facts,
        AttemptFacts | undefined,
      ][]) {
        const expected = EXPECTED[nameOf(state)]?.[given];
        const label = `${nameOf(state)} with ${given}`;
        if (expected === 'throws') {
          assert.throws(() => checkoutIn(state, attempt), TypeError, label);
          continue;
        }
        const checkout = checkoutIn(state, attempt);
        assert.equal(checkout.phase, expected, label);
        assert.equal(checkout.state, state, `${label}: the machine's very state`);
        // What the value holds is what storage would take back: state and phase agree.
        if (checkout.phase !== 'none') assert.equal(isStoredAttempt(checkout), true, label);
      }
    }
  });

  it('replaces the state an attempt in hand carried, and never changes the attempt it was given', () => {
    const created = checkoutIn({ status: 'requires_action' }, facts.created);
    assert.ok(created.phase === 'created');
    const timedOut = checkoutIn({ status: 'timeout' }, created);
    assert.deepEqual(timedOut.state, { status: 'timeout' });
    assert.deepEqual(created.state, { status: 'requires_action' }, 'the earlier value is left as it was');
    assert.equal(Object.hasOwn(facts.created, 'state'), false);
  });

  it('keeps no state and no create body in the facts the next phase is made of', () => {
    const sent = checkoutIn({ status: 'submitting' }, facts.draft);
    assert.ok(sent.phase === 'draft');
    const created = createdAttempt(sent, 'or_attempt_3', 'token', NOW);
    assert.equal(Object.hasOwn(created, 'state'), false);
    assert.equal(Object.hasOwn(created, 'body'), false);
    const waiting = checkoutIn({ status: 'requires_action' }, created);
    assert.ok(waiting.phase === 'created');
    const settled = settledAttempt(waiting, 'failed', 'declined');
    assert.equal(Object.hasOwn(settled, 'state'), false);
    assert.equal(settled.phase, 'settled');
  });
});
