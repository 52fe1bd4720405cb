/**
 * A checkout attempt, one type per phase: a draft until the order exists,
 * created while the payer decides, settled once paid or failed. Each phase
 * holds exactly what a reload needs to carry on from it, and the constructors
 * below are the only ways from one phase to the next.
 */
import {
  IDEMPOTENCY_KEY_PATTERN,
  ISSUERS,
  type Issuer,
  type PaymentFailureCode,
} from '../shared/service-contract.js';
import type { CheckoutIntent } from '../shared/wire.js';
import { createBody } from './checkout-form.js';
import type { CHECKOUT_STATE, CheckoutState, ErrorState } from './checkout-machine.js';
import type { PayCheckoutEventName } from './events.js';

/** What every phase of an attempt keeps. */
export interface AttemptBasics {
  version: 2;
  /** One per attempt, made before the first create (contract §3). */
  idempotencyKey: string;
  /** When the shopper first submitted (ms since the epoch). */
  startedAt: number;
  /** What the shopper was shown, for the receipt. */
  amount?: number;
  currency?: string;
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
}

/** Paid or failed for good: what the receipt or the failure screen shows. */
export interface SettledAttempt extends AttemptBasics {
  phase: 'settled';
  state: { status: typeof CHECKOUT_STATE.paid | typeof CHECKOUT_STATE.failed };
  orderId: string;
  paymentStatus: string;
  /** Why a failed payment failed, when the relay said so in words the checkout knows. */
  failureCode?: PaymentFailureCode;
}

/** One checkout attempt, one type per phase: everything a reload needs to carry on. */
export type StoredAttempt = DraftAttempt | CreatedAttempt | SettledAttempt;

/**
 * An attempt as the session holds it. Its `state` is the machine's, which
 * `AttemptStore.save` writes in on every move, so the constructors below
 * leave it out.
 */
export type CheckoutAttempt<Attempt extends StoredAttempt = StoredAttempt> = Attempt extends StoredAttempt
  ? Omit<Attempt, 'state'> & { state?: Attempt['state'] }
  : never;

/** The phase of an attempt. */
export type AttemptPhase = StoredAttempt['phase'];

/** Per phase: its states, the error causes it can be in, and the strings it must hold. */
const PHASES: Record<AttemptPhase, [CheckoutState[], string[], string[]]> = {
  // A draft in `error` for its cart is kept only when an earlier try may have reached the service.
  draft: [
    ['submitting', 'error'],
    ['create', 'cart'],
    ['body', 'localNumber'],
  ],
  created: [['requires_action', 'timeout', 'error'], ['lookup'], ['orderId', 'lookupToken']],
  settled: [['paid', 'failed'], [], ['orderId', 'paymentStatus']],
};

/**
 * True for what `save` wrote. Storage is shared with the page's scripts and
 * with other versions of the element, so what comes back is checked where it
 * matters: the key that guards against double charges, the phase and its
 * state, and what goes on the wire.
 */
export function isStoredAttempt(value: unknown): value is StoredAttempt {
  // Any JSON may come back: a primitive reads as having no fields, `null` is refused first.
  const attempt = value as Record<string, unknown> | null;
  if (!attempt || !Object.hasOwn(PHASES, String(attempt.phase))) return false;
  const state = attempt.state as Partial<ErrorState> | null | undefined;
  const [states, causes, strings] = PHASES[attempt.phase as AttemptPhase];
  return (
    attempt.version === 2 &&
    IDEMPOTENCY_KEY_PATTERN.test(String(attempt.idempotencyKey)) &&
    typeof attempt.startedAt === 'number' &&
    Array.isArray(attempt.fired) &&
    states.includes(state?.status as CheckoutState) &&
    (state?.status !== 'error' ||
      (causes.includes(state.cause as string) && typeof state.retryable === 'boolean')) &&
    strings.every((field) => typeof attempt[field] === 'string') &&
    (attempt.phase !== 'created' || typeof attempt.deadline === 'number') &&
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

/** A new attempt's common part: a new key, and the amount the page shows now, for its receipt. */
export function attemptBasics(
  now: number,
  { amount, currency }: { amount: number | undefined; currency: string },
): AttemptBasics {
  return { version: 2, idempotencyKey: newIdempotencyKey(), startedAt: now, amount, currency, fired: [] };
}

/**
 * The attempt a valid form starts, with the create body exactly as it is
 * sent every time under one key; or why the checkout must refuse it: no
 * relay URLs, or a cart that is not JSON.
 */
export function draftAttempt(
  intent: CheckoutIntent,
  settings: { createUrl: string; lookupUrl: string; amount: number | undefined; currency: string },
  now: number,
): CheckoutAttempt<DraftAttempt> | 'missing_url' | 'invalid_cart' {
  if (!settings.createUrl || !settings.lookupUrl) return 'missing_url';
  const body = createBody(intent);
  if (body === undefined) return 'invalid_cart';
  const { issuer, number } = intent.payment_method_data.mobile_money;
  const basics = attemptBasics(now, settings);
  return { ...basics, phase: 'draft', body, issuer, localNumber: number };
}

/**
 * The attempt once its order exists: from a draft, whose body (name and
 * number) need not stay in storage now, or from nothing but its order
 * (`resume()`).
 */
export function createdAttempt(
  from: AttemptBasics | CheckoutAttempt<DraftAttempt>,
  orderId: string,
  lookupToken: string,
  deadline: number,
): CheckoutAttempt<CreatedAttempt> {
  const { body: _sent, state: _left, ...kept } = from as Partial<DraftAttempt> & AttemptBasics;
  return { ...kept, phase: 'created', orderId, lookupToken, deadline };
}

/** The attempt once its payment is paid or failed for good: the receipt or the reason needs nothing more. */
export function settledAttempt(
  created: CheckoutAttempt<CreatedAttempt>,
  paymentStatus: string,
  failureCode: PaymentFailureCode | undefined,
): CheckoutAttempt<SettledAttempt> {
  const { state: _left, ...kept } = created;
  return { ...kept, phase: 'settled', paymentStatus, failureCode };
}
