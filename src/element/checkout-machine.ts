/**
 * The checkout flow as a pure state machine (contract §2): no DOM, no
 * network, no clock. The element feeds it what happened and renders what it
 * answers; an event a state does not accept leaves the state unchanged, which
 * is what makes a double click or a second `submit()` harmless.
 */
import { classifyPaymentStatus } from '../shared/service-contract.js';

/** The states of the contract, as reflected on the host's `state` attribute. */
export const CHECKOUT_STATE = {
  idle: 'idle',
  submitting: 'submitting',
  requiresAction: 'requires_action',
  paid: 'paid',
  failed: 'failed',
  timeout: 'timeout',
  error: 'error',
} as const;

/** One of the contract's checkout states. */
export type CheckoutState = (typeof CHECKOUT_STATE)[keyof typeof CHECKOUT_STATE];

/** Everything that can happen to a checkout attempt. */
export type CheckoutEvent =
  /** The shopper (or `submit()`) sends a valid form, or retries a create with the same key. */
  | { type: 'submit' }
  /** The relay created the order; its payment status says where to go. */
  | { type: 'created'; paymentStatus: string }
  /** The relay refused the input (`400` with a field): back to the form. */
  | { type: 'rejected' }
  /** The create failed for good, or after its automatic retries. */
  | { type: 'create_failed' }
  /** A lookup answered with this payment status. */
  | { type: 'polled'; paymentStatus: string }
  /** A lookup failed in a way polling again will not fix (`403`, `404`). */
  | { type: 'poll_failed' }
  /** `poll-timeout` passed without a terminal status. */
  | { type: 'timed_out' }
  /** Poll the same order again ("Check again"): never a new create. */
  | { type: 'check_again' }
  /** Follow an order created elsewhere (`resume()`); not while a create is in flight. */
  | { type: 'resume' }
  /** A new attempt: `reset()`, "Try again" after `failed`, "Use another number"; not while a create is in flight. */
  | { type: 'restart' }
  /** The element is set up in a way it must refuse, such as a secret key. */
  | { type: 'misconfigured' };

/** True for a string that names a checkout state. */
export function isCheckoutState(value: unknown): value is CheckoutState {
  return typeof value === 'string' && Object.hasOwn(TRANSITIONS, value);
}

/** Where a payment status leads: the final states, or waiting for the payer. */
function stateForPaymentStatus(paymentStatus: string): CheckoutState {
  const outcome = classifyPaymentStatus(paymentStatus);
  if (outcome === 'paid') return CHECKOUT_STATE.paid;
  if (outcome === 'failed') return CHECKOUT_STATE.failed;
  return CHECKOUT_STATE.requiresAction;
}

/** In a transition table: the event's payment status decides (paid, failed, or still waiting). */
const BY_PAYMENT_STATUS = 'by_payment_status';

/**
 * What each state does with each event; an event missing from a state's row
 * leaves the state as it is. `restart`, `resume` and `misconfigured` apply
 * everywhere and are handled before the table.
 */
const TRANSITIONS: Record<
  CheckoutState,
  Partial<Record<CheckoutEvent['type'], CheckoutState | typeof BY_PAYMENT_STATUS>>
> = {
  idle: { submit: 'submitting' },
  submitting: { created: BY_PAYMENT_STATUS, rejected: 'idle', create_failed: 'error' },
  requires_action: { polled: BY_PAYMENT_STATUS, poll_failed: 'error', timed_out: 'timeout' },
  // Not a failure: money may still move, so the only ways on are polling the
  // same order again or a deliberate new attempt (contract §2).
  timeout: { check_again: 'requires_action' },
  // A create that failed is sent again under the same key; an order that
  // could not be read is read again. The element picks which one applies.
  error: { submit: 'submitting', check_again: 'requires_action' },
  // Final for the attempt: only a new attempt leaves them.
  paid: {},
  failed: {},
};

/**
 * The state after `event` in `state`; `state` itself when the event does not
 * apply there. Throws on a state it does not know.
 */
export function transition(state: CheckoutState, event: CheckoutEvent): CheckoutState {
  if (!isCheckoutState(state)) throw new TypeError(`Unknown checkout state: ${String(state)}`);
  if (event.type === 'misconfigured') return CHECKOUT_STATE.error;
  if (event.type === 'restart' || event.type === 'resume') {
    // A create in flight may already have sent a prompt to the payer's phone:
    // leaving it for another attempt could let them approve two orders.
    if (state === CHECKOUT_STATE.submitting) return state;
    return event.type === 'restart' ? CHECKOUT_STATE.idle : CHECKOUT_STATE.requiresAction;
  }
  const target = TRANSITIONS[state][event.type];
  if (target !== BY_PAYMENT_STATUS) return target ?? state;
  return stateForPaymentStatus((event as { paymentStatus: string }).paymentStatus);
}
