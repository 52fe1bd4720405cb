import {
  html,
  LitElement,
  nothing,
  type PropertyDeclarations,
  type PropertyValues,
  type TemplateResult,
} from 'lit';
import { detectIssuer, parseGhanaMobileNumber } from '../shared/ghana-mobile-money.js';
import {
  CUSTOMER_NAME_MAX_LENGTH,
  classifyPaymentStatus,
  type Issuer,
  ORDER_ID_PATTERN,
} from '../shared/service-contract.js';
import type { CheckoutIntent, CreateAnswer, LookupAnswer } from '../shared/wire.js';
import {
  AttemptStore,
  attemptStorageKey,
  newIdempotencyKey,
  type StoredAttempt,
  sessionStorageIfAvailable,
} from './attempt-store.js';
import { CheckoutRequestError, createOrder, lookupOrder } from './checkout-api.js';
import {
  checkForm,
  FIELD_ORDER,
  type FieldErrors,
  type FieldName,
  type FormValues,
  fieldForParam,
  formatLocalNumber,
  refusedFieldError,
} from './checkout-form.js';
import { CHECKOUT_STATE, type CheckoutEvent, type CheckoutState, transition } from './checkout-machine.js';
import { CountdownController, formatCountdown, secondsUntil } from './countdown-controller.js';
import { dispatchPayEvent, type PayCheckoutEventDetails, type PayCheckoutEventName } from './events.js';
import { formatAmount } from './format-amount.js';
import { allowedIssuers, ISSUER_DISPLAY } from './issuers.js';
import { payCheckoutStyles } from './pay-checkout.styles.js';
import { PollController } from './poll-controller.js';
import { containsSecretKey } from './secret-key-guard.js';
import { type FailureReason, loadStrings, type PayCheckoutStrings, resolveStrings } from './strings.js';

/** `poll-timeout` when the attribute is missing or not a positive number: about five minutes to approve. */
export const POLL_TIMEOUT_DEFAULT_MS = 360_000;

/** Why the element refuses to work: a configuration the shopper cannot fix. */
export type Refusal = 'secret_key_exposed' | 'missing_url' | 'invalid_cart';

const REFUSAL_MESSAGES: Record<Refusal, string> = {
  secret_key_exposed: 'A secret key was given to <pay-checkout>: remove it from the page and rotate it.',
  missing_url: 'create-url and lookup-url are required.',
  invalid_cart: 'cart is not JSON.',
};

/** What to focus after the next render. */
type FocusTarget = 'heading' | FieldName;

/**
 * A mobile-money checkout: collects the payer's name, number and network,
 * creates the order once through the merchant's relay, waits for the payer to
 * approve on their phone, and shows every outcome (contract §2).
 *
 * @summary Mobile-money checkout (MTN, Telecel, AT) for Ghana.
 *
 * @fires pay-submit - Before the create call; cancelable. `detail: { intent }`.
 * @fires pay-created - The order exists. `detail: { orderId, status, paymentStatus }`.
 * @fires pay-requires-action - The payment waits for the payer. `detail: { orderId }`.
 * @fires pay-paid - The payment is paid. `detail: { orderId, order }`.
 * @fires pay-failed - The payment failed for good. `detail: { orderId, paymentStatus }`.
 * @fires pay-timeout - `poll-timeout` passed without an outcome. `detail: { orderId }`.
 * @fires pay-error - A retryable or configuration error. `detail: { code, message, retryable }`.
 * @fires pay-state-change - Every change of `state`. `detail: { state, previous }`.
 *
 * @csspart form - The form.
 * @csspart field - Each field: label, control, hint and error.
 * @csspart label - Each field's label.
 * @csspart input - Each text field and the network list.
 * @csspart issuer - The network list.
 * @csspart submit - The pay button.
 * @csspart status - The panel of every state after the form.
 * @csspart error - Field error messages and the error state's message.
 * @csspart amount - The amount, on the form and the receipt.
 * @csspart action - The buttons of the status panels.
 *
 * @cssprop --pay-checkout-font-family - Font of the whole element.
 * @cssprop --pay-checkout-font-size - Base font size (default 1rem).
 * @cssprop --pay-checkout-background-color - Background.
 * @cssprop --pay-checkout-text-color - Text.
 * @cssprop --pay-checkout-muted-color - Hints and the receipt's labels.
 * @cssprop --pay-checkout-border-color - Field and secondary button borders.
 * @cssprop --pay-checkout-accent-color - Pay button background.
 * @cssprop --pay-checkout-on-accent-color - Pay button text.
 * @cssprop --pay-checkout-error-color - Error messages and invalid fields.
 * @cssprop --pay-checkout-focus-color - Focus rings.
 * @cssprop --pay-checkout-radius - Corner radius.
 * @cssprop --pay-checkout-spacing - Space between parts.
 * @cssprop --pay-checkout-max-width - Widest the element grows (default 28rem).
 */
export class PayCheckout extends LitElement {
  static override styles = payCheckoutStyles;

  static override properties: PropertyDeclarations = {
    values: { state: true },
    fieldErrors: { state: true },
    attempt: { state: true },
    refusal: { state: true },
    announcement: { state: true },
    earlierRequestOpen: { state: true },
    createUrl: { attribute: 'create-url' },
    lookupUrl: { attribute: 'lookup-url' },
    amount: { type: Number },
    currency: {},
    locale: {},
    issuers: {},
    customerName: { attribute: 'customer-name' },
    phone: {},
    pollInterval: { attribute: 'poll-interval', type: Number },
    pollTimeout: { attribute: 'poll-timeout', type: Number },
    persist: {},
    disabled: { type: Boolean, reflect: true },
    cart: { attribute: false },
    strings: { attribute: false },
    state: { reflect: true },
  };

  readonly #poll = new PollController(this, {
    lookup: (signal) => {
      const { orderId = '', lookupToken = '' } = this.attempt ?? {};
      return lookupOrder(this.lookupUrl, { order_id: orderId, lookup_token: lookupToken }, { signal });
    },
    onAnswer: (answer) => this.#handleLookupAnswer(answer),
    onFailure: (error) => this.#handleLookupFailure(error),
    onTimeout: () => this.#handleTimeout(),
  });

  readonly #countdown = new CountdownController(this);

  declare private values: FormValues;
  declare private fieldErrors: FieldErrors;
  /** The current attempt; undefined on a fresh form. */
  declare private attempt: StoredAttempt | undefined;
  declare private refusal: Refusal | undefined;
  /** The text of the polite live region. */
  declare private announcement: string;
  /** Set after "Use another number": the earlier prompt may still reach the old phone. */
  declare private earlierRequestOpen: boolean;

  /** Where the relay's create endpoint is (contract §3). Required. */
  declare createUrl: string;
  /** Where the relay's lookup endpoint is (contract §3). Required. */
  declare lookupUrl: string;
  /** Amount in minor units (5000 = GH₵ 50.00), for display only: the server decides what is charged. */
  declare amount: number | undefined;
  /** Lowercase currency code; `ghs` by default. */
  declare currency: string;
  /** `en` or `fr`; by default the nearest `lang`, then English. */
  declare locale: string | undefined;
  /** Comma list of the networks offered (`mtn,telecel`); all by default. */
  declare issuers: string | undefined;
  /** Prefills the name (`customer-name`). */
  declare customerName: string;
  /** Prefills the number, local or `+233` form. */
  declare phone: string;
  /** Milliseconds between lookups (`poll-interval`), clamped to 2000–5000; 3000 by default. */
  declare pollInterval: number;
  /** Milliseconds to wait for the payer before `timeout` (`poll-timeout`); 360000 by default. */
  declare pollTimeout: number;
  /** `session` (default) keeps the attempt across reloads in `sessionStorage`; `none` keeps nothing. */
  declare persist: string;
  /** Disables the form. */
  declare disabled: boolean;
  /** Any JSON for the merchant's server to price; sent as `cart`. */
  declare cart: unknown;
  /** Overrides any of the element's texts. */
  declare strings: Partial<PayCheckoutStrings> | undefined;
  /** The checkout state, reflected as the `state` attribute. Read-only: a write is undone. */
  declare state: CheckoutState;

  /** The machine's state; `state` mirrors it and is put back if a page writes it. */
  #machineState: CheckoutState = CHECKOUT_STATE.idle;
  #createRun: AbortController | undefined;
  #issuerChosenByShopper = false;
  readonly #editedFields = new Set<FieldName>();
  #focusAfterRender: FocusTarget | undefined;
  readonly #reportedRefusals = new Set<Refusal>();
  /** Set while `pay-submit` listeners run: a `submit()` from one of them is ignored. */
  #proposing = false;

  constructor() {
    super();
    this.values = { customer_name: '', number: '', issuer: '' };
    this.fieldErrors = {};
    this.announcement = '';
    this.earlierRequestOpen = false;
    this.createUrl = '';
    this.lookupUrl = '';
    this.currency = 'ghs';
    this.customerName = '';
    this.phone = '';
    this.pollInterval = 3_000;
    this.pollTimeout = POLL_TIMEOUT_DEFAULT_MS;
    this.persist = 'session';
    this.disabled = false;
    this.cart = null;
    this.state = CHECKOUT_STATE.idle;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    // Moved in the DOM or re-attached: carry on where the attempt stands.
    if (this.hasUpdated) this.#continueAttempt();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    // The create is resent with the same key on reconnect; the controllers stop themselves.
    this.#createRun?.abort();
    this.#createRun = undefined;
  }

  /** Holds each render until the locale's texts are here, so a French page never flashes English. */
  protected override scheduleUpdate(): ReturnType<LitElement['scheduleUpdate']> {
    const loading = loadStrings(this.#locale);
    if (!loading) return super.scheduleUpdate();
    return loading.then(() => super.scheduleUpdate());
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (!this.hasUpdated) this.#restoreAttempt();
    if (this.state !== this.#machineState) this.state = this.#machineState;
    if (changed.has('customerName') || changed.has('phone') || changed.has('issuers')) this.#applyPrefills();
    // The contract has the element refuse a key however it arrives, set
    // properties included: the one event not caused by the shopper.
    if (this.refusal !== 'secret_key_exposed' && this.#exposesSecretKey()) this.#refuse('secret_key_exposed');
  }

  protected override firstUpdated(): void {
    this.#continueAttempt();
  }

  protected override updated(): void {
    const target = this.#focusAfterRender;
    this.#focusAfterRender = undefined;
    if (target) {
      this.renderRoot
        .querySelector<HTMLElement>(target === 'heading' ? '[data-heading]' : `[name="${target}"]`)
        ?.focus();
    }
  }

  readonly #onFormSubmit = (event: SubmitEvent): void => {
    event.preventDefault();
    void this.submit();
  };

  readonly #onFieldInput = (event: Event): void => {
    const control = event.target as HTMLInputElement | HTMLSelectElement;
    const field = control.name as FieldName;
    this.#editedFields.add(field);
    const values = { ...this.values, [field]: control.value };
    if (field === 'issuer') this.#issuerChosenByShopper = control.value !== '';
    values.issuer = this.#suggestedIssuer(values);
    this.values = values;
    // An error already shown follows the typing, so a fixed field clears at
    // once; new errors wait until the shopper leaves the field. A number
    // typed in may also settle the network.
    if (this.fieldErrors[field]) this.#checkField(field);
    if (field === 'number' && this.fieldErrors.issuer) this.#checkField('issuer');
  };

  readonly #onFieldBlur = (event: FocusEvent): void => {
    const field = (event.target as HTMLInputElement).name as FieldName;
    // Chromium blurs a focused field as the form is removed for the next
    // screen: only a shopper leaving a field of the open form counts.
    if (!this.#editedFields.has(field) || this.#machineState !== CHECKOUT_STATE.idle) return;
    this.#checkField(field);
    const number = field === 'number' && parseGhanaMobileNumber(this.values.number);
    if (number) this.values = { ...this.values, number: formatLocalNumber(number.local) };
  };

  readonly #onUseAnotherNumber = (): void => this.#startOver('number', true);

  readonly #onTryAgain = (): void => {
    if (this.#machineState === CHECKOUT_STATE.error) void this.submit();
    else this.#startOver('heading', false);
  };

  readonly #onCheckAgain = (): void => this.#checkAgain();

  /**
   * Sends the form: validates it, fires `pay-submit`, then creates the order
   * once. In `error` it retries with the same idempotency key. Anywhere else
   * (a create in flight, a payment under way) it does nothing.
   */
  async submit(): Promise<void> {
    if (this.refusal || this.disabled || this.#proposing) return;
    if (this.#exposesSecretKey()) return this.#refuse('secret_key_exposed');
    if (this.#machineState === CHECKOUT_STATE.error) return this.#retryAttempt();
    if (this.#machineState !== CHECKOUT_STATE.idle) return;
    const check = checkForm(this.values, this.#allowedIssuers, this.cart);
    if (!check.ok) {
      this.fieldErrors = check.errors;
      this.#focusAfterRender = FIELD_ORDER.find((field) => check.errors[field]);
      return;
    }
    this.fieldErrors = {};
    if (!this.createUrl || !this.lookupUrl) return this.#refuse('missing_url');
    let body: string;
    try {
      body = JSON.stringify(check.intent);
    } catch {
      return this.#refuse('invalid_cart');
    }
    const { issuer, number } = check.intent.payment_method_data.mobile_money;
    const attempt = this.#newAttempt({ body, issuer, localNumber: number });
    // Listeners get a copy of exactly the bytes that will be sent.
    this.#proposing = true;
    const proceed = this.#fire('pay-submit', { intent: JSON.parse(body) }, attempt);
    this.#proposing = false;
    if (!proceed) return;
    this.attempt = attempt;
    this.earlierRequestOpen = false;
    // The state, and with it the key, is stored before the first byte leaves.
    this.#moveTo({ type: 'submit' });
    await this.#sendCreate();
  }

  /** Starts a new attempt with a new idempotency key and clears the stored one. Ignored while a create is in flight. */
  reset(): void {
    if (this.#machineState === CHECKOUT_STATE.submitting || this.#exposesSecretKey()) return;
    this.refusal = undefined;
    this.#editedFields.clear();
    this.#issuerChosenByShopper = false;
    this.#applyPrefills();
    this.#startOver(this.matches(':focus-within') ? 'heading' : undefined, false);
  }

  /**
   * Follows an order created elsewhere, as a new attempt: polls it and shows
   * its outcome. Throws a `TypeError` for a malformed order id or token;
   * ignored while a create is in flight.
   */
  resume({ orderId, lookupToken }: { orderId: string; lookupToken: string }): void {
    if (!ORDER_ID_PATTERN.test(orderId) || !lookupToken) {
      throw new TypeError('resume() needs an orderId and a lookupToken.');
    }
    if (this.refusal || this.#machineState === CHECKOUT_STATE.submitting) return;
    if (!this.lookupUrl) {
      this.#refuse('missing_url');
      return;
    }
    this.#stopWork();
    this.attempt = this.#newAttempt({ orderId, lookupToken, deadline: Date.now() + this.#timeoutMs });
    this.#moveTo({ type: 'resume' });
    this.#enterRequiresAction();
  }

  /** A new attempt: a new idempotency key, and the amount shown now for its receipt. */
  #newAttempt(fields: Partial<StoredAttempt>): StoredAttempt {
    return {
      version: 1,
      idempotencyKey: newIdempotencyKey(),
      state: this.#machineState,
      startedAt: Date.now(),
      amount: this.amount,
      currency: this.currency,
      fired: [],
      ...fields,
    };
  }

  /** Carries on with the attempt in hand: resends its create, or polls its order. */
  #continueAttempt(): void {
    if (this.refusal) return;
    if (this.#machineState === CHECKOUT_STATE.submitting && !this.#createRun) void this.#sendCreate();
    if (this.#machineState === CHECKOUT_STATE.requiresAction && !this.#poll.running) this.#startPolling();
  }

  /** Picks up the attempt a reload left behind (contract §2, `persist="session"`). No events: nothing new happened. */
  #restoreAttempt(): void {
    const store = this.#store();
    const stored = store?.load();
    if (!stored) return;
    // An idle attempt sent nothing, and a refused create created nothing:
    // neither is worth more than a fresh form.
    if (
      stored.state === CHECKOUT_STATE.idle ||
      (stored.state === CHECKOUT_STATE.error && !stored.retryable && !stored.orderId)
    ) {
      store?.clear();
      return;
    }
    this.attempt = stored;
    this.#machineState = this.state = stored.state;
    this.announcement = this.#titleOf(stored.state);
    try {
      // A create still to be sent again: the form shows what it sends, not the prefills.
      const { customer_data, payment_method_data } = JSON.parse(stored.body ?? '') as CheckoutIntent;
      const { issuer, number } = payment_method_data.mobile_money;
      this.values = { customer_name: customer_data.name, number: formatLocalNumber(number), issuer };
      this.#editedFields.add('customer_name').add('number');
      this.#issuerChosenByShopper = true;
    } catch {
      // No body: the order exists, and the form is not shown.
    }
  }

  async #sendCreate(): Promise<void> {
    const attempt = this.attempt;
    if (!attempt?.body) return;
    this.#createRun?.abort();
    const run = new AbortController();
    this.#createRun = run;
    let answer: CreateAnswer | undefined;
    let failure: unknown;
    try {
      answer = await createOrder(this.createUrl, attempt.body, attempt.idempotencyKey, {
        signal: run.signal,
      });
    } catch (error) {
      failure = error;
    }
    // Only the latest run may write: an aborted or superseded one says nothing.
    if (run.signal.aborted || this.#createRun !== run) return;
    this.#createRun = undefined;
    if (answer) this.#handleCreated(answer);
    else this.#handleCreateFailure(failure);
  }

  #handleCreated({ order, lookup_token }: CreateAnswer): void {
    const paymentStatus = order.payment.status;
    this.#updateAttempt({
      orderId: order.id,
      lookupToken: lookup_token,
      deadline: Date.now() + this.#timeoutMs,
      paymentStatus,
      // The order exists: the name and number need not stay in storage.
      body: undefined,
    });
    this.#fire('pay-created', { orderId: order.id, status: order.status, paymentStatus });
    this.#moveTo({ type: 'created', paymentStatus });
    this.#afterStatus(order);
  }

  #handleCreateFailure(error: unknown): void {
    const failure =
      error instanceof CheckoutRequestError
        ? error
        : new CheckoutRequestError('answer', 0, 'invalid_answer', String(error));
    const field = failure.status === 400 ? fieldForParam(failure.param) : undefined;
    if (field) {
      // The relay refused the input and created nothing: back to the form,
      // with a new key next time, since this one is bound to the refused body.
      this.#store()?.clear();
      this.attempt = undefined;
      this.fieldErrors = { [field]: refusedFieldError(field) };
      this.#moveTo({ type: 'rejected' }, field);
      return;
    }
    this.#updateAttempt({ errorCode: failure.code, retryable: failure.retryable });
    this.#moveTo({ type: 'create_failed' });
    this.#fire('pay-error', { code: failure.code, message: failure.message, retryable: failure.retryable });
  }

  /** "Try again" in `error`: the same order is read again, or the same create sent again under the same key. */
  #retryAttempt(): void {
    const attempt = this.attempt;
    if (attempt?.orderId) this.#checkAgain();
    else if (!attempt?.body || !attempt.retryable) this.#startOver('heading', false);
    else this.#resendCreate();
  }

  #resendCreate(): void {
    this.#updateAttempt({ errorCode: undefined, retryable: undefined });
    this.#moveTo({ type: 'submit' });
    void this.#sendCreate();
  }

  /** Polls the same order for another `poll-timeout` ("Check again"): never a new create. */
  #checkAgain(): void {
    if (!this.attempt?.orderId) return;
    this.#updateAttempt({
      deadline: Date.now() + this.#timeoutMs,
      errorCode: undefined,
      retryable: undefined,
    });
    if (this.#moveTo({ type: 'check_again' })) this.#enterRequiresAction();
  }

  #startOver(focus: FocusTarget | undefined, earlierRequestOpen: boolean): void {
    if (this.#machineState === CHECKOUT_STATE.submitting) return;
    this.#stopWork();
    this.#store()?.clear();
    this.attempt = undefined;
    this.fieldErrors = {};
    this.earlierRequestOpen = earlierRequestOpen;
    this.#moveTo({ type: 'restart' }, focus);
  }

  #stopWork(): void {
    this.#createRun?.abort();
    this.#createRun = undefined;
    this.#poll.stop();
    this.#countdown.stop();
  }

  #handleLookupAnswer({ order }: LookupAnswer): boolean {
    if (order.id !== this.attempt?.orderId) {
      return this.#handleLookupFailure(
        new CheckoutRequestError('answer', 200, 'invalid_answer', 'Lookup answered for another order.'),
      );
    }
    const paymentStatus = order.payment.status;
    this.#updateAttempt({ paymentStatus });
    if (classifyPaymentStatus(paymentStatus) === 'pending') return false;
    this.#moveTo({ type: 'polled', paymentStatus });
    this.#afterStatus(order);
    return true;
  }

  #handleLookupFailure(error: unknown): boolean {
    if (error instanceof CheckoutRequestError && error.retryable) return false;
    // 403 (token), 404 (order), 400: polling again cannot help. The order
    // exists, so the error screen tells the shopper not to pay again.
    const code = error instanceof CheckoutRequestError ? error.code : 'invalid_answer';
    const message = String((error as Error)?.message ?? error);
    this.#updateAttempt({ errorCode: code, retryable: false });
    this.#moveTo({ type: 'poll_failed' });
    this.#fire('pay-error', { code, message, retryable: false });
    return true;
  }

  #handleTimeout(): void {
    const orderId = this.attempt?.orderId;
    if (!orderId || !this.#moveTo({ type: 'timed_out' })) return;
    this.#fire('pay-timeout', { orderId });
  }

  /** The event of a payment status just reached, from a create or a lookup. */
  #afterStatus(order: LookupAnswer['order']): void {
    const { id: orderId, payment } = order;
    const outcome = classifyPaymentStatus(payment.status);
    if (outcome === 'paid') this.#fire('pay-paid', { orderId, order });
    else if (outcome === 'failed') this.#fire('pay-failed', { orderId, paymentStatus: payment.status });
    else this.#enterRequiresAction();
  }

  #enterRequiresAction(): void {
    const orderId = this.attempt?.orderId;
    if (!orderId || this.#machineState !== CHECKOUT_STATE.requiresAction) return;
    this.#fire('pay-requires-action', { orderId });
    this.#startPolling();
  }

  #startPolling(): void {
    const deadline = this.attempt?.deadline ?? Date.now() + this.#timeoutMs;
    this.#poll.start(deadline, this.pollInterval);
    this.#countdown.start(deadline);
  }

  /** Stops everything for a configuration the shopper cannot fix, and says so once. */
  #refuse(refusal: Refusal): void {
    this.refusal = refusal;
    this.#stopWork();
    this.#moveTo({ type: 'misconfigured' });
    if (this.#reportedRefusals.has(refusal)) return;
    this.#reportedRefusals.add(refusal);
    dispatchPayEvent(this, 'pay-error', {
      code: refusal,
      message: REFUSAL_MESSAGES[refusal],
      retryable: false,
    });
  }

  /**
   * Applies an event to the machine. On a change: stores the attempt,
   * announces the new state, moves focus and fires `pay-state-change`.
   * Returns whether the state changed.
   */
  #moveTo(event: CheckoutEvent, focus?: FocusTarget): boolean {
    const previous = this.#machineState;
    const next = transition(previous, event);
    if (next === previous) return false;
    this.#machineState = this.state = next;
    if (next !== CHECKOUT_STATE.requiresAction) {
      this.#poll.stop();
      this.#countdown.stop();
    }
    this.#updateAttempt({ state: next });
    this.announcement = this.#titleOf(next);
    // The heading takes focus only when focus was in the element (or lost
    // with a button that re-rendered away): a result arriving while the
    // shopper reads elsewhere on the page does not pull them back.
    const focusWasHere = this.matches(':focus-within') || document.activeElement === document.body;
    const newScreen = next !== CHECKOUT_STATE.submitting && next !== CHECKOUT_STATE.idle;
    this.#focusAfterRender = focus ?? (newScreen && focusWasHere ? 'heading' : undefined);
    dispatchPayEvent(this, 'pay-state-change', { state: next, previous });
    return true;
  }

  /**
   * Fires a contract event at most once per attempt (`pay-state-change`
   * aside), remembered in the stored attempt so a reload does not repeat it.
   */
  #fire<Name extends PayCheckoutEventName>(
    name: Name,
    detail: PayCheckoutEventDetails[Name],
    attempt: StoredAttempt | undefined = this.attempt,
  ): boolean {
    if (attempt) {
      if (attempt.fired.includes(name)) return true;
      attempt.fired = [...attempt.fired, name];
      if (attempt === this.attempt) this.#store()?.save(attempt);
    }
    return dispatchPayEvent(this, name, detail);
  }

  #updateAttempt(patch: Partial<StoredAttempt>): void {
    if (!this.attempt) return;
    this.attempt = { ...this.attempt, ...patch };
    this.#store()?.save(this.attempt);
  }

  #store(): AttemptStore | undefined {
    if (this.persist === 'none' || !this.createUrl) return undefined;
    return new AttemptStore(sessionStorageIfAvailable(), attemptStorageKey(this.createUrl, this.id));
  }

  /** Prefills fill what the shopper has not typed in themselves; the network follows. */
  #applyPrefills(): void {
    const values = { ...this.values };
    if (!this.#editedFields.has('customer_name')) values.customer_name = this.customerName ?? '';
    if (!this.#editedFields.has('number')) values.number = this.phone ?? '';
    values.issuer = this.#suggestedIssuer(values);
    this.values = values;
  }

  #checkField(field: FieldName): void {
    const check = checkForm(this.values, this.#allowedIssuers, null);
    const errors = { ...this.fieldErrors };
    if (check.ok || !check.errors[field]) delete errors[field];
    else errors[field] = check.errors[field];
    this.fieldErrors = errors;
  }

  /** The network to show: the shopper's choice, else the one the number's prefix suggests. */
  #suggestedIssuer({ number, issuer }: FormValues): Issuer | '' {
    const allowed = this.#allowedIssuers;
    if (this.#issuerChosenByShopper && issuer && allowed.includes(issuer)) return issuer;
    const detected = detectIssuer(number);
    if (detected && allowed.includes(detected)) return detected;
    return allowed.length === 1 ? (allowed[0] ?? '') : '';
  }

  #exposesSecretKey(): boolean {
    return containsSecretKey([
      Array.from(this.attributes, (attribute) => attribute.value),
      this.createUrl,
      this.lookupUrl,
      this.currency,
      this.locale,
      this.issuers,
      this.customerName,
      this.phone,
      this.persist,
      this.cart,
      this.strings,
    ]);
  }

  get #allowedIssuers(): Issuer[] {
    return allowedIssuers(this.issuers);
  }

  get #timeoutMs(): number {
    const timeout = this.pollTimeout;
    return Number.isFinite(timeout) && timeout > 0 ? timeout : POLL_TIMEOUT_DEFAULT_MS;
  }

  /** `locale`, else the nearest `lang` (crossing shadow roots), else English. */
  get #locale(): string {
    if (this.locale) return this.locale;
    for (let node: Node | null = this; node; node = node.parentNode ?? (node as ShadowRoot).host ?? null) {
      const lang = (node as Element).getAttribute?.('lang');
      if (lang != null) return lang || 'en';
    }
    return 'en';
  }

  get #text(): PayCheckoutStrings {
    return resolveStrings(this.#locale, this.strings);
  }

  /** Each state's heading, which the live region also announces; for `submitting`, what is under way. */
  #titleOf(state: CheckoutState, text = this.#text): string {
    return {
      idle: '',
      submitting: text.submitting,
      requires_action: text.requiresActionTitle,
      paid: text.paidTitle,
      failed: text.failedTitle,
      timeout: text.timeoutTitle,
      error: text.errorTitle,
    }[state];
  }

  #amount(amount = this.amount, currency = this.currency): string {
    return formatAmount(amount, currency || 'ghs', this.#locale);
  }

  #renderInput(name: 'customer_name' | 'number', text: PayCheckoutStrings): TemplateResult {
    const isNumber = name === 'number';
    return html`<div class="field" part="field"><label part="label" for=${name}>${isNumber ? text.numberLabel : text.nameLabel}</label>
<input part="input" id=${name} name=${name} required type=${isNumber ? 'tel' : 'text'} inputmode=${isNumber ? 'tel' : nothing}
autocomplete=${isNumber ? 'tel' : 'name'} .value=${this.values[name]} ?readonly=${this.#machineState === CHECKOUT_STATE.submitting}
aria-invalid=${!!this.fieldErrors[name]} aria-describedby=${isNumber ? 'number-hint number-error' : `${name}-error`}
@input=${this.#onFieldInput} @blur=${this.#onFieldBlur}>
${isNumber ? html`<p id="number-hint" class="hint">${text.numberHint}</p>` : nothing}
${this.#renderFieldError(name, text)}</div>`;
  }

  #renderFieldError(name: FieldName, text: PayCheckoutStrings): TemplateResult {
    const error = this.fieldErrors[name];
    const message = !error
      ? ''
      : error === 'nameTooLong'
        ? text.nameTooLong(CUSTOMER_NAME_MAX_LENGTH)
        : text[error];
    return html`<p id="${name}-error" class="error" part="error">${message}</p>`;
  }

  #renderForm(text: PayCheckoutStrings): TemplateResult {
    const submitting = this.#machineState === CHECKOUT_STATE.submitting;
    const amount = this.#amount();
    const issuer = this.values.issuer;
    return html`<form part="form" novalidate aria-labelledby="heading" @submit=${this.#onFormSubmit}>
<h2 id="heading" tabindex="-1" data-heading>${text.formTitle}</h2>
${amount ? html`<p class="amount" part="amount"><span>${text.amountLabel}</span> <span>${amount}</span></p>` : nothing}
${this.earlierRequestOpen ? html`<p class="note">${text.earlierRequestOpen}</p>` : nothing}
<fieldset ?disabled=${this.disabled}>${this.#renderInput('customer_name', text)}${this.#renderInput('number', text)}
<div class="field" part="field"><label part="label" for="issuer">${text.issuerLabel}</label>
<select part="input issuer" id="issuer" name="issuer" required ?disabled=${submitting}
aria-invalid=${!!this.fieldErrors.issuer} aria-describedby="issuer-error" @change=${this.#onFieldInput}>
<option value="" ?selected=${!issuer}>${text.issuerPlaceholder}</option>
${this.#allowedIssuers.map((option) => html`<option value=${option} ?selected=${issuer === option}>${ISSUER_DISPLAY[option].name}</option>`)}
</select>${this.#renderFieldError('issuer', text)}</div>
<button part="submit" type="submit" aria-busy=${submitting} aria-disabled=${submitting}>
${submitting ? html`<span class="spinner" aria-hidden="true"></span>` : nothing}${text.pay(amount)}</button>
</fieldset></form>`;
  }

  #renderOrder(text: PayCheckoutStrings, amount = ''): TemplateResult {
    return html`<dl><dt>${text.orderLabel}</dt><dd>${this.attempt?.orderId}</dd>
${amount ? html`<dt>${text.amountLabel}</dt><dd part="amount">${amount}</dd>` : nothing}</dl>`;
  }

  #renderButton(label: string, onClick: () => void, secondary = false): TemplateResult {
    return html`<button class=${secondary ? 'secondary' : ''} part="action" type="button" @click=${onClick}>${label}</button>`;
  }

  #renderRequiresAction(text: PayCheckoutStrings): TemplateResult {
    const { issuer, localNumber, deadline = 0 } = this.attempt ?? {};
    const network = issuer && ISSUER_DISPLAY[issuer];
    const connection = this.#poll.connection;
    return html`<p>${text.requiresActionBody(localNumber ? formatLocalNumber(localNumber) : '', network ? network.name : '')}</p>
${network ? html`<p class="hint">${text.ussdFallback(network.ussdCode, network.name)}</p>` : nothing}
<p class="countdown" role="timer">${text.timeLeft(formatCountdown(secondsUntil(deadline)))}</p>
${connection === 'ok' ? nothing : html`<p class="note">${connection === 'offline' ? text.offline : text.connectionTrouble}</p>`}
${this.#renderButton(text.useAnotherNumber, this.#onUseAnotherNumber, true)}`;
  }

  #renderError(text: PayCheckoutStrings): TemplateResult {
    const attempt = this.attempt;
    // A refusal offers nothing to press; an order that exists is only ever
    // checked again; a create is sent again under the same key.
    const withOrder = !this.refusal && attempt?.orderId;
    const message = this.refusal
      ? text.errorConfiguration
      : withOrder
        ? text.errorLookup
        : attempt?.retryable
          ? text.errorRetryable
          : text.errorConfiguration;
    const action = withOrder
      ? this.#renderButton(text.checkAgain, this.#onCheckAgain)
      : this.#renderButton(text.tryAgain, this.#onTryAgain);
    return html`<p part="error">${message}</p>
${withOrder ? this.#renderOrder(text) : nothing}
${this.refusal ? nothing : action}`;
  }

  /** What a state after the form says under its heading. */
  #renderStatusBody(
    state: Exclude<CheckoutState, 'idle' | 'submitting'>,
    text: PayCheckoutStrings,
  ): TemplateResult {
    const attempt = this.attempt;
    switch (state) {
      case CHECKOUT_STATE.requiresAction:
        return this.#renderRequiresAction(text);
      case CHECKOUT_STATE.paid: {
        const amount = this.#amount(attempt?.amount, attempt?.currency);
        return html`<p>${text.paidBody(amount)}</p>${this.#renderOrder(text, amount)}`;
      }
      case CHECKOUT_STATE.failed:
        return html`<p>${text.failedReason(failureReason(attempt?.paymentStatus))}</p>
${this.#renderButton(text.tryAgain, this.#onTryAgain)}`;
      case CHECKOUT_STATE.timeout:
        return html`<p>${text.timeoutBody}</p>${this.#renderOrder(text)}${this.#renderButton(text.checkAgain, this.#onCheckAgain)}`;
      case CHECKOUT_STATE.error:
        return this.#renderError(text);
      default:
        throw new Error(`<pay-checkout> cannot render the state ${String(state satisfies never)}.`);
    }
  }

  /** The form while nothing is sent or the create is on its way; a status panel with a heading after. */
  #renderState(text: PayCheckoutStrings): TemplateResult {
    const state = this.#machineState;
    if (state === CHECKOUT_STATE.idle || state === CHECKOUT_STATE.submitting) return this.#renderForm(text);
    return html`<div class="status state-${state}" part="status"><h2 tabindex="-1" data-heading>${this.#titleOf(state, text)}</h2>${this.#renderStatusBody(state, text)}</div>`;
  }

  override render(): TemplateResult {
    return html`<div lang=${this.#locale}>
<div class="visually-hidden" role="status" aria-live="polite">${this.announcement}</div>
${this.#renderState(this.#text)}</div>`;
  }
}

/** The reason a terminal failure status gives the shopper. */
function failureReason(paymentStatus: string | undefined): FailureReason {
  return paymentStatus === 'cancelled' || paymentStatus === 'expired' ? paymentStatus : 'failed';
}
