/**
 * The checkout flow as a pure state machine: no DOM, no
 * network, no clock. The session feeds it what happened and the view renders
 * what it answers. Each state carries what its screen needs (`error` says
 * whether a create or a lookup failed, or the page is set up wrongly), so no
 * caller decides what a state means. An event a state does not accept
 * leaves the state unchanged, which is what makes a double click or a
 * second `submit()` harmless.
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

/**
 * What failed in `error`: the create (sent again under the same key when
 * `retryable`, else a new attempt), the cart (the merchant's `CartError`:
 * "Try again" sends the page's cart as it is now, under a new key, unless
 * an earlier try of the attempt may have reached the service), a lookup of
 * an order that exists (read again, never paid again), or the page's
 * configuration (nothing to press).
 */
export type ErrorCause = 'create' | 'cart' | 'lookup' | 'config';

/** The `error` state with its cause. */
export interface ErrorState {
  status: typeof CHECKOUT_STATE.error;
  cause: ErrorCause;
  /** True when the same request may succeed if sent again. */
  retryable: boolean;
  /** For `cart`: the merchant's own words about the cart, shown as text. */
  message?: string;
}

/** A state of the machine: the contract's name and, for `error`, its context. */
export type MachineState = { status: Exclude<CheckoutState, 'error'> } | ErrorState;

/** Everything that can happen to a checkout attempt. */
export type CheckoutEvent =
  /** A valid form is sent; in `error`, "Try again". */
  | { type: 'submit' }
  /** The relay created the order; its payment status says where to go. */
  | { type: 'created'; paymentStatus: string }
  /** The relay refused the input (`400` with a field): back to the form. */
  | { type: 'rejected' }
  /**
   * The create failed for good, or after its automatic retries; with
   * `cartMessage` when the relay refused the cart (`400` with `param` `cart…`).
   */
  | { type: 'create_failed'; retryable: boolean; cartMessage?: string }
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
  /**
   * Another order of the checkout, one the shopper moved on from, was paid
   * first (one checkout, at most one payment): its receipt.
   * Not while a create is in flight, whose order must be known first.
   */
  | { type: 'other_paid'; paymentStatus: string }
  /** The element is set up in a way it must refuse, such as a secret key. */
  | { type: 'misconfigured' };

/** True for a string that names a checkout state. */
export function isCheckoutState(value: unknown): value is CheckoutState {
  return typeof value === 'string' && Object.hasOwn(TRANSITIONS, value);
}

/** In the table: the event's payment status decides (paid, failed, or still waiting). */
const BY_PAYMENT_STATUS = 'by_payment_status';
/** In the table: what the error's cause allows (see `retry`). */
const RETRY = 'retry';

type Target = CheckoutState | typeof BY_PAYMENT_STATUS | typeof RETRY;

/**
 * What each state does with each event; an event missing from a state's row
 * leaves the state as it is. `misconfigured` and the events of `ANYWHERE`
 * apply everywhere and are looked up before the table.
 */
const TRANSITIONS: Record<CheckoutState, Partial<Record<CheckoutEvent['type'], Target>>> = {
  idle: { submit: 'submitting' },
  submitting: { created: BY_PAYMENT_STATUS, rejected: 'idle', create_failed: 'error' },
  requires_action: { polled: BY_PAYMENT_STATUS, poll_failed: 'error', timed_out: 'timeout' },
  // Not a failure: money may still move, so the order is still looked up (a
  // pending answer keeps the screen), and the only ways on are its outcome,
  // polling it again for another `poll-timeout`, or a deliberate new attempt.
  timeout: { polled: BY_PAYMENT_STATUS, poll_failed: 'error', check_again: 'requires_action' },
  // "Try again" and "Check again" do what the error's cause allows.
  error: { submit: RETRY, check_again: RETRY },
  // Final for the attempt: only a new attempt leaves them.
  paid: {},
  failed: {},
};

/** The events every state but `submitting` takes, wherever the checkout stands. */
const ANYWHERE: Partial<Record<CheckoutEvent['type'], CheckoutState>> = {
  restart: 'idle',
  resume: 'requires_action',
  other_paid: 'paid',
};

/**
 * "Try again" in `error`: the same create under the same key (or a fresh
 * form when the relay refused it for good), a create with the page's cart
 * as it is now after a cart refusal, the same order read again; nothing for
 * a refusal. "Check again" only reads an order again.
 */
function retry(state: ErrorState, event: CheckoutEvent): CheckoutState {
  if (state.cause === 'lookup') return 'requires_action';
  if (state.cause === 'config' || event.type === 'check_again') return 'error';
  return state.retryable || state.cause === 'cart' ? 'submitting' : 'idle';
}

/** The state a target of the table stands for, with the context `error` carries. */
function enter(target: Target, state: MachineState, event: CheckoutEvent): MachineState {
  if (target === RETRY) target = retry(state as ErrorState, event);
  if (target === BY_PAYMENT_STATUS) {
    const outcome = classifyPaymentStatus((event as { paymentStatus: string }).paymentStatus);
    target = outcome !== 'pending' ? outcome : state.status === 'timeout' ? 'timeout' : 'requires_action';
  }
  if (target === state.status) return state;
  if (target !== 'error') return { status: target };
  // Only a create (for its cart, or otherwise) or a lookup fails into `error` through the table.
  if (event.type !== 'create_failed') return { status: target, cause: 'lookup', retryable: false };
  const { retryable, cartMessage: message } = event;
  return message === undefined
    ? { status: target, cause: 'create', retryable }
    : { status: target, cause: 'cart', retryable, message };
}

/**
 * The state after `event` in `state`: `state` itself (the same object) when
 * nothing changes. Throws on a state it does not know.
 */
export function transition(state: MachineState, event: CheckoutEvent): MachineState {
  const status: unknown = state?.status;
  if (!isCheckoutState(status)) throw new TypeError(String(status));
  if (event.type === 'misconfigured') return { status: 'error', cause: 'config', retryable: false };
  // A create in flight may already have sent a prompt to the payer's phone:
  // leaving it for another attempt could let them approve two orders.
  const target = (status !== 'submitting' && ANYWHERE[event.type]) || TRANSITIONS[status][event.type];
  return target ? enter(target, state, event) : state;
}
