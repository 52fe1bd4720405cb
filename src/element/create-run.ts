/**
 * The create of a checkout attempt, for a session: one run at
 * a time, as Lit's `Task` runs (its own `AbortController`, and only the
 * latest run reports), and what a failed create means for the attempt: a
 * field to fix, or an error to show and whether the attempt's idempotency key
 * may be dropped. The retries under one key are `createOrder`'s.
 */
import type { CreateAnswer, OrderAmount } from '../shared/wire.js';
import { asRequestError, CheckoutRequestError } from './checkout-api.js';
import type { AttemptFacts, DraftAttempt } from './checkout-attempt.js';
import {
  CART_REJECTED,
  type FieldName,
  type FieldRefusal,
  fieldForParam,
  TOO_MANY_PAYMENT_REQUESTS,
} from './checkout-form.js';
import type { PayErrorDetail } from './events.js';

/** What the session supplies: the create itself, and what to do with its outcome. */
export interface CreateHandlers {
  /** One create of `draft`, its retries under the same key included; rejects on failure. */
  create(draft: AttemptFacts<DraftAttempt>, signal: AbortSignal): Promise<CreateAnswer>;
  /** The order exists; `draft` is the attempt the run sent. */
  onCreated(draft: AttemptFacts<DraftAttempt>, answer: CreateAnswer): void;
  /**
   * The relay refused one of the shopper's fields (`400` with `param`), or
   * the number had too many prompts (`429`, with `refusal`): nothing was
   * created, so the attempt's key is done with.
   */
  onFieldRefused(field: FieldName, refusal: FieldRefusal | undefined): void;
  /**
   * Any other failure: what `pay-error` says, the merchant's own words when
   * its `CartError` refused the cart, and `newKey` when nothing can exist
   * under the attempt's key, so that "Try again" starts a new attempt.
   */
  onFailed(error: PayErrorDetail, cartMessage: string | undefined, newKey: boolean): void;
  /**
   * The relay prices the cart otherwise than the shopper saw (`409`
   * `amount_changed`, with its `amount`): refused before any prompt, so
   * nothing exists under the key; `error` is what `pay-error` says.
   */
  onAmountChanged(amount: OrderAmount, error: PayErrorDetail): void;
}

/** The one owner of a session's create. */
export class CreateRun {
  readonly #handlers: CreateHandlers;
  #run: AbortController | undefined;

  constructor(handlers: CreateHandlers) {
    this.#handlers = handlers;
  }

  /** True while a create is in flight. */
  get running(): boolean {
    return !!this.#run;
  }

  /**
   * Sends `draft`'s create, aborting a run in flight, and reports its outcome
   * unless a later run or `stop()` came first. `firstRun`: the attempt's key
   * was never sent before.
   */
  async start(draft: AttemptFacts<DraftAttempt>, firstRun?: boolean): Promise<void> {
    this.stop();
    const run = new AbortController();
    this.#run = run;
    let answer: CreateAnswer | CheckoutRequestError;
    try {
      answer = await this.#handlers.create(draft, run.signal);
    } catch (error) {
      answer = asRequestError(error);
    }
    if (this.#run !== run) return;
    this.#run = undefined;
    if (answer instanceof CheckoutRequestError) this.#failed(answer, !!firstRun && !answer.retried);
    else this.#handlers.onCreated(draft, answer);
  }

  /** Stops the run in flight; it reports nothing. The same create may be sent again under the same key. */
  stop(): void {
    this.#run?.abort();
    this.#run = undefined;
  }

  /** `firstTry`: nothing was sent under the attempt's key before this answer, retries included. */
  #failed(
    { status, param, code, message, retryable, retryAfterMs, amount }: CheckoutRequestError,
    firstTry: boolean,
  ): void {
    // The shopper presses Pay again at the new price: a retry, with a new key.
    if (amount) {
      this.#handlers.onAmountChanged(amount, { code, message, retryable: true });
      return;
    }
    const tooManyPrompts = status === 429 && code === TOO_MANY_PAYMENT_REQUESTS;
    const field = status === 400 || tooManyPrompts ? fieldForParam(param) : undefined;
    if (field) {
      // Too many prompts to the number: the shopper approves the one on their phone, waits, or changes the number.
      const waitMinutes = Math.max(1, Math.ceil((retryAfterMs ?? 0) / 60_000));
      this.#handlers.onFieldRefused(
        field,
        tooManyPrompts ? { error: 'numberTooManyPrompts', waitMinutes } : undefined,
      );
      return;
    }
    // The merchant's `priceCart` refused the cart: its own message is shown. The
    // relay prices before it scopes the key, counts a prompt, writes its journal
    // or calls the service, so after a first try nothing exists under the key: it
    // is dropped, and "Try again" is a new attempt with the page's cart as it is
    // then. After earlier tries, one of which may have reached the service, the
    // key and its request are kept: "Try again" resends them, finding an order
    // they made rather than making a second.
    const cartRefused = status === 400 && /^cart\b/.test(param ?? '');
    if (cartRefused) {
      retryable = !firstTry;
      code = CART_REJECTED;
    }
    // A server-created checkout the relay refused (unknown, paid or expired): a
    // key it answers an order under is never refused, so nothing exists under
    // this one, whatever the tries. Its message is shown, final; "Try again" is
    // a new attempt with the page's checkout as it is then.
    const checkoutRefused = code.startsWith('checkout_');
    this.#handlers.onFailed(
      { code, message, retryable },
      cartRefused || checkoutRefused ? message : undefined,
      (cartRefused && firstTry) || checkoutRefused,
    );
  }
}
