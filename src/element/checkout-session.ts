/**
 * One checkout, without the DOM or Lit: the state machine, the attempt and
 * its storage, the create (one run at a time, latest wins), polling and the
 * countdown. The element owns a session, hands it the shopper's actions,
 * and renders what the session reports through its host. Lit's `Task` is
 * the model: explicit statuses, an `AbortController` per run, and only the
 * latest run writes its result.
 */
import { classifyPaymentStatus, ORDER_ID_PATTERN } from '../shared/service-contract.js';
import type { CheckoutIntent, CreateAnswer, LookupAnswer } from '../shared/wire.js';
import { AttemptStore } from './attempt-store.js';
import { asRequestError, CheckoutRequestError, createOrder, lookupOrder } from './checkout-api.js';
import {
  attemptBasics,
  type CreatedAttempt,
  createdAttempt,
  type DraftAttempt,
  draftAttempt,
  resumedAttempt,
  type StoredAttempt,
  settledAttempt,
} from './checkout-attempt.js';
import { fieldForParam } from './checkout-form.js';
import { type CheckoutEvent, type MachineState, transition } from './checkout-machine.js';
import { type Clock, systemClock } from './clock.js';
import { Countdown } from './countdown.js';
import type { PayCheckoutEventDetails, PayCheckoutEventName } from './events.js';
import { type Connection, PollController } from './poll-controller.js';
import {
  type CheckoutSessionHost,
  type CheckoutSessionOptions,
  type CheckoutSettings,
  pollTimeoutMs,
  REFUSAL_MESSAGES,
  type Refusal,
} from './session-host.js';

/** The checkout's state, attempt, network runs and timers. */
export class CheckoutSession {
  #state: MachineState = { status: 'idle' };
  #attempt: StoredAttempt | undefined;
  #refusal: Refusal | undefined;
  readonly #reportedRefusals = new Set<Refusal>();
  #createRun: AbortController | undefined;
  /** Set while `pay-submit` listeners run: a `submit()` from one of them is ignored. */
  #proposing = false;
  /** Set once the element has rendered: from then on a reconnect carries on. */
  #started = false;
  readonly #settings: CheckoutSettings;
  readonly #host: CheckoutSessionHost;
  readonly #options: CheckoutSessionOptions;
  readonly #clock: Clock;
  readonly #poll: PollController;
  readonly #countdown: Countdown;

  /** `settings` is read each time it is needed (the element itself): attributes change at any time. */
  constructor(settings: CheckoutSettings, host: CheckoutSessionHost, options: CheckoutSessionOptions) {
    this.#settings = settings;
    this.#host = host;
    this.#options = options;
    const clock = options.clock ?? systemClock;
    this.#clock = clock;
    const update = () => host.requestUpdate();
    this.#countdown = new Countdown(clock, update);
    this.#poll = new PollController({
      lookup: (signal) => {
        const { orderId, lookupToken } = this.#attempt as CreatedAttempt;
        const request = { order_id: orderId, lookup_token: lookupToken };
        return lookupOrder(settings.lookupUrl, request, this.#request(signal));
      },
      onAnswer: (answer) => this.#onLookupAnswer(answer),
      onFailure: (error) => this.#onLookupFailure(error),
      onTimeout: () => this.#onTimeout(),
      onConnection: update,
      clock,
      page: options.page,
    });
  }

  /** Where the checkout stands, with its context. */
  get state(): MachineState {
    return this.#state;
  }

  /** The current attempt; undefined on a fresh form. */
  get attempt(): StoredAttempt | undefined {
    return this.#attempt;
  }

  /** How the lookups are getting through. */
  get connection(): Connection {
    return this.#poll.connection;
  }

  /** Whole seconds left for the payer to approve, never negative. */
  get secondsLeft(): number {
    const deadline = this.#attempt?.phase === 'created' ? this.#attempt.deadline : 0;
    return Math.max(0, Math.ceil((deadline - this.#clock.now()) / 1000));
  }

  /** Reconnected to the page (a Lit controller hook): carry on where the attempt stands. */
  hostConnected(): void {
    if (this.#started) this.carryOn();
  }

  /** Off the page: polling stops, and the create is resent with the same key on reconnect. */
  hostDisconnected(): void {
    this.#stopWork();
  }

  /** Picks up the attempt a reload left behind (contract §2, `persist="session"`). No events: nothing new happened. */
  restore(): void {
    const store = this.#store();
    const stored = store?.load();
    // A refused create created nothing: not worth more than a fresh form.
    if (stored?.phase === 'draft' && stored.state.status === 'error' && !stored.state.retryable)
      store?.clear();
    else if (stored) [this.#attempt, this.#state] = [stored, stored.state];
  }

  /** Carries on with the attempt in hand: resends its create, or polls its order. */
  carryOn(): void {
    this.#started = true;
    const { status } = this.#state;
    if (status === 'submitting' && !this.#createRun) void this.#sendCreate();
    if (status === 'requires_action' && !this.#poll.running) this.#watchPayment();
  }

  /**
   * Sends the form: `readIntent` checks it (undefined when invalid), then
   * `pay-submit` fires and the order is created once. In `error` this is
   * "Try again": whatever the error's cause allows. Elsewhere it does nothing.
   */
  async submit(readIntent: () => CheckoutIntent | undefined): Promise<void> {
    if (this.#refusal || this.#proposing) return;
    if (this.#state.status === 'error') return this.#retry();
    const intent = this.#state.status === 'idle' ? readIntent() : undefined;
    if (!intent) return;
    const { createUrl, lookupUrl } = this.#settings;
    if (!createUrl || !lookupUrl) return this.refuse('missing_url');
    let body: string;
    try {
      body = JSON.stringify(intent);
    } catch {
      return this.refuse('invalid_cart');
    }
    const { issuer, number } = intent.payment_method_data.mobile_money;
    const attempt = draftAttempt(this.#basics(), body, issuer, number);
    // Listeners get a copy of exactly the bytes that will be sent.
    this.#proposing = true;
    const proceed = this.#fire('pay-submit', { intent: JSON.parse(body) }, attempt);
    this.#proposing = false;
    if (!proceed) return;
    this.#attempt = attempt;
    // The state, and with it the key, is stored before the first byte leaves.
    this.#move({ type: 'submit' });
    await this.#sendCreate();
  }

  /** A new attempt with a new key; the stored one is forgotten. False (nothing done) while a create is in flight. */
  restart(): boolean {
    if (this.#state.status === 'submitting') return false;
    this.#stopWork();
    this.#forget();
    this.#move({ type: 'restart' });
    return true;
  }

  /** `restart()`, out of a refusal too: the page may have fixed its setup. */
  reset(): boolean {
    if (this.#state.status !== 'submitting') this.#refusal = undefined;
    return this.restart();
  }

  /**
   * Follows an order created elsewhere, as a new attempt. Throws a
   * `TypeError` for a malformed order id or token; ignored while a create is
   * in flight or the checkout refuses to work.
   */
  resume({ orderId, lookupToken }: { orderId: string; lookupToken: string }): void {
    if (!ORDER_ID_PATTERN.test(orderId) || !lookupToken) {
      throw new TypeError('resume() needs an orderId and a lookupToken.');
    }
    if (this.#refusal || this.#state.status === 'submitting') return;
    if (!this.#settings.lookupUrl) {
      this.refuse('missing_url');
      return;
    }
    this.#stopWork();
    this.#attempt = resumedAttempt(this.#basics(), orderId, lookupToken, this.#deadline());
    this.#move({ type: 'resume' });
    this.#waitForPayer();
  }

  /** Polls the same order for another `poll-timeout` ("Check again"): never a new create. */
  checkAgain(): void {
    if (this.#move({ type: 'check_again' })) this.#pollAgain();
  }

  /** Stops everything for a configuration the shopper cannot fix, and says so once per reason. */
  refuse(refusal: Refusal): void {
    if (this.#refusal === refusal) return;
    this.#refusal = refusal;
    this.#stopWork();
    this.#move({ type: 'misconfigured' });
    if (this.#reportedRefusals.has(refusal)) return;
    this.#reportedRefusals.add(refusal);
    this.#host.dispatch('pay-error', { code: refusal, message: REFUSAL_MESSAGES[refusal], retryable: false });
  }

  /** "Try again" in `error`: the same create under the same key, the same order read again, or a fresh form. */
  #retry(): void {
    if (!this.#move({ type: 'submit' })) return;
    const { status } = this.#state;
    if (status === 'submitting') void this.#sendCreate();
    else if (status === 'requires_action') this.#pollAgain();
    else this.#forget();
  }

  async #sendCreate(): Promise<void> {
    const attempt = this.#attempt as DraftAttempt;
    this.#createRun?.abort();
    const run = new AbortController();
    this.#createRun = run;
    let answer: CreateAnswer | undefined;
    let failure: unknown;
    try {
      const { createUrl } = this.#settings;
      answer = await createOrder(createUrl, attempt.body, attempt.idempotencyKey, this.#request(run.signal));
    } catch (error) {
      failure = error;
    }
    // Only the latest run may write: an aborted or superseded one says nothing.
    if (run.signal.aborted || this.#createRun !== run) return;
    this.#createRun = undefined;
    if (answer) this.#created(attempt, answer);
    else this.#createFailed(asRequestError(failure));
  }

  #created(draft: DraftAttempt, { order, lookup_token }: CreateAnswer): void {
    const paymentStatus = order.payment.status;
    this.#attempt = createdAttempt(draft, order.id, lookup_token, this.#deadline(), paymentStatus);
    this.#fire('pay-created', { orderId: order.id, status: order.status, paymentStatus });
    this.#reached(order, { type: 'created', paymentStatus });
  }

  #createFailed({ status, param, code, message, retryable }: CheckoutRequestError): void {
    const field = status === 400 ? fieldForParam(param) : undefined;
    if (field) {
      // The relay refused the input and created nothing: back to the form,
      // with a new key next time, since this one is bound to the refused body.
      this.#forget();
      this.#move({ type: 'rejected' });
      this.#host.fieldRefused(field);
      return;
    }
    this.#move({ type: 'create_failed', retryable });
    this.#fire('pay-error', { code, message, retryable });
  }

  /** A payment status from a create or a lookup: a final one settles the attempt; then the machine moves. */
  #reached(order: LookupAnswer['order'], event: CheckoutEvent): void {
    const { id: orderId, payment } = order;
    const paymentStatus = payment.status;
    const outcome = classifyPaymentStatus(paymentStatus);
    if (outcome !== 'pending') {
      this.#attempt = settledAttempt(this.#attempt as CreatedAttempt, outcome, paymentStatus);
    }
    this.#move(event);
    if (outcome === 'paid') this.#fire('pay-paid', { orderId, order });
    else if (outcome === 'failed') this.#fire('pay-failed', { orderId, paymentStatus });
    else this.#waitForPayer();
  }

  /** A lookup answered: true (polling stops) once the payment is final. */
  #onLookupAnswer({ order }: LookupAnswer): boolean {
    const attempt = this.#attempt as CreatedAttempt;
    if (order.id !== attempt.orderId) {
      return this.#onLookupFailure(
        new CheckoutRequestError('answer', 200, 'invalid_answer', 'Lookup answered for another order.'),
      );
    }
    const paymentStatus = order.payment.status;
    if (classifyPaymentStatus(paymentStatus) !== 'pending') {
      this.#reached(order, { type: 'polled', paymentStatus });
      return true;
    }
    attempt.paymentStatus = paymentStatus;
    this.#save();
    return false;
  }

  /** A lookup failed: false (polling backs off) unless polling again cannot help (`403`, `404`, `400`). */
  #onLookupFailure(error: unknown): boolean {
    const { code, message, retryable } = asRequestError(error);
    if (retryable) return false;
    // The order exists, so the error screen tells the shopper not to pay again.
    this.#move({ type: 'poll_failed' });
    this.#fire('pay-error', { code, message, retryable });
    return true;
  }

  #onTimeout(): void {
    const { orderId } = this.#attempt as CreatedAttempt;
    if (this.#move({ type: 'timed_out' })) this.#fire('pay-timeout', { orderId });
  }

  /** Back to waiting for the same order, with a new `poll-timeout`. */
  #pollAgain(): void {
    (this.#attempt as CreatedAttempt).deadline = this.#deadline();
    this.#save();
    this.#waitForPayer();
  }

  #waitForPayer(): void {
    const attempt = this.#attempt;
    if (attempt?.phase !== 'created' || this.#state.status !== 'requires_action') return;
    this.#fire('pay-requires-action', { orderId: attempt.orderId });
    this.#watchPayment();
  }

  #watchPayment(): void {
    const { deadline } = this.#attempt as CreatedAttempt;
    this.#poll.start(deadline, this.#settings.pollInterval);
    this.#countdown.start(deadline);
  }

  #stopWatching(): void {
    this.#poll.stop();
    this.#countdown.stop();
  }

  #stopWork(): void {
    this.#createRun?.abort();
    this.#createRun = undefined;
    this.#stopWatching();
  }

  /**
   * Applies an event to the machine. On a change: stores the attempt and
   * tells the host; a new state name also fires `pay-state-change`.
   * Returns whether anything changed.
   */
  #move(event: CheckoutEvent): boolean {
    const previous = this.#state;
    const next = transition(previous, event);
    if (next === previous) return false;
    this.#state = next;
    if (next.status !== 'requires_action') this.#stopWatching();
    this.#save();
    if (next.status === previous.status) {
      // Same screen, new context (a refusal over an error): the view only redraws.
      this.#host.requestUpdate();
    } else {
      this.#host.stateChanged(previous.status);
      this.#host.dispatch('pay-state-change', { state: next.status, previous: previous.status });
    }
    return true;
  }

  /** Fires a contract event at most once per attempt, remembered in storage so a reload does not repeat it. */
  #fire<Name extends PayCheckoutEventName>(
    name: Name,
    detail: PayCheckoutEventDetails[Name],
    attempt = this.#attempt,
  ): boolean {
    if (attempt?.fired.includes(name)) return true;
    attempt?.fired.push(name);
    if (attempt === this.#attempt) this.#save();
    return this.#host.dispatch(name, detail);
  }

  /** Stores the attempt in its current state. A refusal is not stored: a reload with the page fixed carries on. */
  #save(): void {
    const attempt = this.#attempt;
    const state = this.#state;
    if (!attempt || (state.status === 'error' && state.cause === 'config')) return;
    // The machine keeps each phase to its own states (see StoredAttempt).
    attempt.state = state as typeof attempt.state;
    this.#store()?.save(attempt);
  }

  #forget(): void {
    this.#store()?.clear();
    this.#attempt = undefined;
  }

  #store(): AttemptStore | undefined {
    const key = this.#options.storageKey();
    return key === undefined ? undefined : new AttemptStore(this.#options.storage, key);
  }

  #basics() {
    const { amount, currency } = this.#settings;
    return attemptBasics(this.#clock.now(), amount, currency);
  }

  #deadline(): number {
    return this.#clock.now() + pollTimeoutMs(this.#settings.pollTimeout);
  }

  #request(signal: AbortSignal) {
    const { fetch, createRetries } = this.#options;
    return { signal, fetch, retries: createRetries };
  }
}
