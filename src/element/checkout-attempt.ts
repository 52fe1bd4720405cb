/**
 * A checkout attempt, one type per phase: a draft until the order exists,
 * created while the payer decides, settled once paid or failed. Each phase
 * holds exactly what a reload needs to carry on from it, and the constructors
 * below are the only ways from one phase to the next. The attempt and the
 * machine's state make one value, the {@link Checkout}: each phase names the
 * states it can be in, and `checkoutIn` is the one way to put the two together.
 */
import {
  IDEMPOTENCY_KEY_PATTERN,
  ISSUERS,
  type Issuer,
  type PaymentFailureCode,
} from '../shared/service-contract.js';
import type { CheckoutIntent, OrderAmount } from '../shared/wire.js';
import { cartFingerprint } from './cart-fingerprint.js';
import { createBody, maskNumber } from './checkout-form.js';
import type {
  CHECKOUT_STATE,
  CheckoutState,
  ErrorCause,
  ErrorState,
  MachineState,
} from './checkout-machine.js';
import { DEFAULT_CURRENCY } from './defaults.js';
import type { PayCheckoutEventName } from './events.js';
import { readAmount } from './wire-guards.js';

/** What every phase of an attempt keeps. */
export interface AttemptBasics {
  version: 3;
  /** One per attempt, made before the first create. */
  idempotencyKey: string;
  /** When the shopper first submitted (ms since the epoch). */
  startedAt: number;
  /**
   * The amount the shopper is shown: the page's when the attempt starts, the
   * relay's `order.amount` once an answer carries it; none when the page
   * gave no whole amount and no answer had one.
   */
  amount?: OrderAmount;
  /** The merchant's reference for the checkout, from the create answer; null when it gave none. */
  reference?: string | null;
  /** The fingerprint of the cart the attempt was made for (`cartFingerprint`); none after `resume()`. */
  cart?: number;
  /** The shop's items as the relay priced them (`price-url`), each `name × quantity`, for the receipt. */
  items?: string[];
  /** Events already fired for this attempt: each fires at most once, reloads included. */
  fired: PayCheckoutEventName[];
}

/**
 * Sent (or being sent), no order known yet. The create `body` (name and
 * number) is kept only in this phase, to resend the very same request under
 * the same key.
 */
export interface DraftAttempt extends AttemptBasics {
  phase: 'draft';
  state: { status: typeof CHECKOUT_STATE.submitting } | (ErrorState & { cause: 'create' | 'cart' });
  body: string;
  issuer: Issuer;
  /** The number the prompt goes to, local form, for the "approve on your phone" screen. */
  localNumber: string;
}

/** The order exists and its payment is not settled: what polling needs. */
export interface CreatedAttempt extends AttemptBasics {
  phase: 'created';
  state:
    | { status: typeof CHECKOUT_STATE.requiresAction | typeof CHECKOUT_STATE.timeout }
    | (ErrorState & { cause: 'lookup' });
  orderId: string;
  lookupToken: string;
  /** When waiting for the payer gives up: `poll-timeout` after the order was created or checked again. */
  deadline: number;
  /** Unknown after `resume()`, as is the number. */
  issuer?: Issuer;
  localNumber?: string;
  /** Set when the shopper gave the same number again and the checkout took this order up again instead of a new prompt. */
  again?: boolean;
}

/** Another order of the checkout paid after the one on the receipt: what the receipt says of it. */
export interface AlsoPaid {
  orderId: string;
  amount?: OrderAmount | undefined;
  /** The number it was paid from, masked (`024 ••• 4567`). */
  masked?: string | undefined;
}

/** Paid or failed for good: what the receipt or the failure screen shows. */
export interface SettledAttempt extends AttemptBasics {
  phase: 'settled';
  state: { status: typeof CHECKOUT_STATE.paid | typeof CHECKOUT_STATE.failed };
  orderId: string;
  paymentStatus: string;
  /** Why a failed payment failed, when the relay said so in words the checkout knows. */
  failureCode?: PaymentFailureCode;
  /** The number it was paid from, masked: the receipt names it, storage keeps no more of it. */
  masked?: string | undefined;
  /** When it was paid or failed (ms since the epoch): the relay's `completed_at`, else when the checkout heard. */
  settledAt?: number;
  /** Other orders of the checkout paid after this one: the shopper paid more than once, and is told. */
  alsoPaid?: AlsoPaid[];
}

/** One checkout attempt, one type per phase, in its state: everything a reload needs to carry on. */
export type CheckoutAttempt = DraftAttempt | CreatedAttempt | SettledAttempt;

/** No attempt in hand: the fresh form, a refusal, or a cart refused on an attempt's first try. */
export interface NoAttempt {
  phase: 'none';
  state: { status: typeof CHECKOUT_STATE.idle } | (ErrorState & { cause: 'config' | 'cart' });
}

/**
 * The checkout at one moment, as one value: the machine's state and the
 * attempt it belongs to, as Lit's `Task` holds its status with its value.
 * Made only by {@link checkoutIn}, so the two never disagree.
 */
export type Checkout = CheckoutAttempt | NoAttempt;

/**
 * An attempt apart from its state, as the constructors below build it:
 * {@link checkoutIn} puts it in the state the machine moved to.
 */
export type AttemptFacts<Attempt extends CheckoutAttempt = CheckoutAttempt> = Attempt extends CheckoutAttempt
  ? Omit<Attempt, 'state'>
  : never;

/** The phase of a checkout: its attempt's, or `none`. */
type CheckoutPhase = Checkout['phase'];

/** The states of a phase. */
type PhaseState<Phase extends CheckoutPhase> = Extract<Checkout, { phase: Phase }>['state'];

/** Per phase: its states, the error causes it can be in, and the strings it must hold. */
const PHASES: Record<CheckoutPhase, [CheckoutState[], ErrorCause[], string[]]> = {
  // A draft in `error` for its cart is kept only when an earlier try may have reached the service.
  draft: [
    ['submitting', 'error'],
    ['create', 'cart'],
    ['body', 'localNumber'],
  ],
  created: [['requires_action', 'timeout', 'error'], ['lookup'], ['orderId', 'lookupToken']],
  settled: [['paid', 'failed'], [], ['orderId', 'paymentStatus']],
  // The fresh form, a refusal, or a cart refused on a first try: nothing stored.
  none: [['idle', 'error'], ['config', 'cart'], []],
};

/** True when `state` (a machine state, or whatever storage held) is one `phase` can be in. */
function isPhaseState<Phase extends CheckoutPhase>(phase: Phase, state: unknown): state is PhaseState<Phase> {
  // Any JSON may come back from storage: a primitive reads as having no fields.
  const { status, cause, retryable } = (state ?? {}) as Partial<ErrorState>;
  const [states, causes] = PHASES[phase];
  return (
    states.includes(status as CheckoutState) &&
    (status !== 'error' || (causes.includes(cause as ErrorCause) && typeof retryable === 'boolean'))
  );
}

/**
 * The checkout in `state` with `attempt`: a state of the attempt's phase
 * keeps it; a state with no room for an attempt (the form, a refusal) drops
 * it. A state that needs an attempt of another phase, or one when none is
 * given, is a TypeError: a state and its attempt never disagree.
 */
export function checkoutIn(state: MachineState, attempt: AttemptFacts | undefined): Checkout {
  // The state checked against the attempt's own phase makes the pair one of `Checkout`'s.
  if (attempt && isPhaseState(attempt.phase, state)) return { ...attempt, state } as Checkout;
  if (isPhaseState('none', state)) return { phase: 'none', state };
  // The state alone says enough: this is a bug of the element, never the page's (the embed's bytes are counted).
  throw new TypeError(state.status);
}

/**
 * True for what `save` wrote. Storage is shared with the page's scripts and
 * with other versions of the element, so what comes back is checked where it
 * matters: the key that guards against double charges, the phase and its
 * state, and what goes on the wire.
 */
export function isStoredAttempt(value: unknown): value is CheckoutAttempt {
  // Any JSON may come back: a primitive reads as having no fields, `null` is refused first.
  const attempt = value as Record<string, unknown> | null;
  if (!attempt || attempt.phase === 'none' || !Object.hasOwn(PHASES, String(attempt.phase))) return false;
  const phase = attempt.phase as CheckoutAttempt['phase'];
  return (
    attempt.version === 3 &&
    IDEMPOTENCY_KEY_PATTERN.test(String(attempt.idempotencyKey)) &&
    typeof attempt.startedAt === 'number' &&
    Array.isArray(attempt.fired) &&
    isPhaseState(phase, attempt.state) &&
    PHASES[phase][2].every((field) => typeof attempt[field] === 'string') &&
    (phase !== 'created' || typeof attempt.deadline === 'number') &&
    (attempt.issuer === undefined || (ISSUERS as readonly unknown[]).includes(attempt.issuer))
  );
}

/**
 * A fresh idempotency key: a random UUID, or 128 random bits in hex where
 * `crypto.randomUUID` is missing (it needs a secure context; a phone testing
 * a shop over plain HTTP on the LAN has none).
 */
export function newIdempotencyKey(): string {
  return (
    crypto.randomUUID?.() ??
    Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join(
      '',
    )
  );
}

/** The page's amount as the element's attributes hold it: a number, and its currency apart. */
export interface PageAmount {
  amount: number | undefined;
  currency: string | undefined;
}

/**
 * The page's `amount` and `currency` as one amount, in the element's
 * currency when the page names none; undefined unless a whole number.
 */
export function pageAmount({ amount, currency }: PageAmount): OrderAmount | undefined {
  return Number.isSafeInteger(amount)
    ? { currency: currency || DEFAULT_CURRENCY, value: amount as number }
    : undefined;
}

/** A new attempt's common part: a new key, and the amount the page shows now, for its receipt. */
export function attemptBasics(now: number, page: PageAmount): AttemptBasics {
  return {
    version: 3,
    idempotencyKey: newIdempotencyKey(),
    startedAt: now,
    amount: pageAmount(page),
    fired: [],
  };
}

/**
 * The attempt a valid form starts, with the create body exactly as it is
 * sent every time under one key; or why the checkout must refuse it: no
 * relay URLs, or a cart that is not JSON.
 */
export function draftAttempt(
  intent: CheckoutIntent,
  settings: PageAmount & { createUrl: string; lookupUrl: string },
  now: number,
): AttemptFacts<DraftAttempt> | 'missing_url' | 'invalid_cart' {
  if (!settings.createUrl || !settings.lookupUrl) return 'missing_url';
  const body = createBody(intent);
  if (body === undefined) return 'invalid_cart';
  const { issuer, number } = intent.payment_method_data.mobile_money;
  const basics = attemptBasics(now, settings);
  // The attempt belongs to its server-created checkout, else to its cart.
  const cart = cartFingerprint(intent.checkout || intent.cart);
  return { ...basics, phase: 'draft', body, issuer, localNumber: number, cart };
}

/** The attempt with the amount an answer says the shopper is charged (`order.amount`); as it was when the answer has none. */
export function withChargedAmount<Attempt extends AttemptBasics>(attempt: Attempt, amount: unknown): Attempt {
  const charged = readAmount(amount);
  return charged ? { ...attempt, amount: charged } : attempt;
}

/**
 * What `pay-created` and `pay-paid` say of an attempt beyond its order: the
 * amount charged (the relay's once answered, else the page's; null when
 * neither is whole), a copy a listener may change, and the merchant's
 * reference (null when none).
 */
export function chargeOf({ amount, reference }: AttemptBasics): {
  amount: OrderAmount | null;
  reference: string | null;
} {
  return { amount: readAmount(amount) ?? null, reference: reference ?? null };
}

/**
 * The attempt once its order exists: from a draft, whose body (name and
 * number) need not stay in storage now, or from nothing but its order
 * (`resume()`).
 */
export function createdAttempt(
  from: AttemptBasics | AttemptFacts<DraftAttempt>,
  orderId: string,
  lookupToken: string,
  deadline: number,
): AttemptFacts<CreatedAttempt> {
  // A draft in hand still carries its state: the new facts keep neither it nor the body.
  const draft: Partial<DraftAttempt> & AttemptBasics = from;
  const { body: _sent, state: _placed, ...kept } = draft;
  return { ...kept, phase: 'created', orderId, lookupToken, deadline };
}

/** The attempt once its payment is paid or failed for good: the receipt or the reason needs nothing more. */
export function settledAttempt(
  created: AttemptFacts<CreatedAttempt>,
  paymentStatus: string,
  failureCode: PaymentFailureCode | undefined,
  settledAt?: number,
): AttemptFacts<SettledAttempt> {
  // The created attempt in hand still carries its state: the settled facts do not, nor the whole number.
  const placed: AttemptFacts<CreatedAttempt> & Partial<Pick<CreatedAttempt, 'state'>> = created;
  const { state: _placed, localNumber, again: _again, ...kept } = placed;
  return {
    ...kept,
    phase: 'settled',
    paymentStatus,
    failureCode,
    masked: maskNumber(localNumber),
    settledAt,
  };
}

/** What a receipt says of another order of the checkout that was paid too. */
export function alsoPaid({ orderId, amount, localNumber }: AttemptFacts<CreatedAttempt>): AlsoPaid {
  return { orderId, amount, masked: maskNumber(localNumber) };
}
