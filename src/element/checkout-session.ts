/**
 * One checkout, without the DOM or Lit: it moves the state machine, keeps
 * the attempt and its storage, and applies what its create run
 * (`create-run.ts`) and its poller (`poll-controller.ts`) report. The
 * element owns a session, hands it the shopper's actions and renders what it
 * reports through its host. Lit's `Task` is the model: explicit statuses, an
 * `AbortController` per run, only the latest run writes.
 */
import { classifyPaymentStatus, ORDER_ID_PATTERN, paymentFailureCode } from '../shared/service-contract.js';
import type { CheckoutIntent, LookupAnswer } from '../shared/wire.js';
import { AttemptStore } from './attempt-store.js';
import { createOrder, lookupOrder, type RequestOptions } from './checkout-api.js';
import {
  attemptBasics,
  type CheckoutAttempt,
  type CreatedAttempt,
  createdAttempt,
  type DraftAttempt,
  draftAttempt,
  settledAttempt,
} from './checkout-attempt.js';
import { type CheckoutEvent, type MachineState, transition } from './checkout-machine.js';
import { CreateRun } from './create-run.js';
import type { PayCheckoutEventDetails, PayCheckoutEventName } from './events.js';
import { type Connection, PollController } from './poll-controller.js';
import {
  type CheckoutEnvironment,
  type CheckoutSessionHost,
  type CheckoutSettings,
  pollTimeoutMs,
  REFUSAL_MESSAGES,
  type Refusal,
} from './session-host.js';

/** The checkout's state, attempt, network runs and timers. */
export class CheckoutSession {
  #state: MachineState = { status: 'idle' };
  readonly #attempts: AttemptStore;
  #refusal: Refusal | undefined;
  readonly #reportedRefusals = new Set<Refusal>();
  /** Set while `pay-submit` listeners run: a `submit()` from one of them is ignored. */
  #proposing = false;
  readonly #settings: CheckoutSettings;
  readonly #host: CheckoutSessionHost;
  readonly #env: CheckoutEnvironment;
  readonly #create: CreateRun;
  readonly #poll: PollController;

  /** `settings` is read each time it is needed (the element itself): attributes change at any time. */
  constructor(settings: CheckoutSettings, host: CheckoutSessionHost, environment: CheckoutEnvironment) {
    this.#settings = settings;
    this.#host = host;
    this.#env = environment;
    this.#attempts = new AttemptStore(environment.storage, () => host.storageKey());
    this.#create = new CreateRun({
      create: ({ body, idempotencyKey }, signal) =>
        createOrder(settings.createUrl, body, idempotencyKey, this.#request(signal)),
      onCreated: (draft, { order, lookup_token }) => {
        const paymentStatus = order.payment.status;
        this.#attempts.current = createdAttempt(draft, order.id, lookup_token, this.#deadline());
        this.#fire('pay-created', { orderId: order.id, status: order.status, paymentStatus });
        this.#reached(order, 'created');
      },
      onFieldRefused: (field, refusal) => {
        // Refused input created nothing: back to the form, and a new key next time (this one is bound to the body).
        this.#attempts.forget();
        this.#move({ type: 'rejected' });
        this.#host.fieldRefused(field, refusal);
      },
      onFailed: (error, cartMessage, newKey) => {
        if (newKey) this.#attempts.forget();
        this.#move({ type: 'create_failed', retryable: error.retryable, cartMessage });
        this.#fire('pay-error', error);
      },
    });
    this.#poll = new PollController(
      {
        lookup: (request, signal) => lookupOrder(settings.lookupUrl, request, this.#request(signal)),
        onAnswer: (order) => this.#reached(order, 'polled'),
        onGiveUp: ({ code, message }) => {
          // The order exists, so the error screen tells the shopper not to pay again.
          this.#move({ type: 'poll_failed' });
          this.#fire('pay-error', { code, message, retryable: false });
        },
        onTimeout: () => {
          const { orderId } = this.#attempts.current as CheckoutAttempt<CreatedAttempt>;
          if (this.#move({ type: 'timed_out' })) this.#fire('pay-timeout', { orderId });
        },
        onChange: () => host.requestUpdate(),
      },
      environment,
    );
  }

  /** Where the checkout stands, with its context. */
  get state(): MachineState {
    return this.#state;
  }

  /** The current attempt; undefined on a fresh form. */
  get attempt(): CheckoutAttempt | undefined {
    return this.#attempts.current;
  }

  /** How the lookups are getting through. */
  get connection(): Connection {
    return this.#poll.connection;
  }

  /** Whole seconds left for the payer to approve, never negative. */
  get secondsLeft(): number {
    const attempt = this.#attempts.current;
    const deadline = attempt?.phase === 'created' ? attempt.deadline : 0;
    return Math.max(0, Math.ceil((deadline - this.#env.now()) / 1000));
  }

  /** On the page again (a Lit controller hook): carry on where the attempt stands. */
  hostConnected(): void {
    this.carryOn();
  }

  /** Off the page: polling stops, and the create is resent with the same key on reconnect. */
  hostDisconnected(): void {
    this.#stopWork();
  }

  /** Picks up the attempt a reload left behind (contract §2, `persist="session"`). No events: nothing new happened. */
  restore(): void {
    this.#state = this.#attempts.load()?.state ?? this.#state;
  }

  /** Carries on with the attempt in hand: resends its create, or polls its order. */
  carryOn(): void {
    const { status } = this.#state;
    if (status === 'submitting' && !this.#create.running) void this.#sendCreate();
    if (status === 'requires_action') this.#waitForPayer();
  }

  /**
   * Sends the form once `readIntent` found it valid: `pay-submit`, then one
   * create. In `error`, "Try again"; after a cart refused on the attempt's
   * first try, a new attempt with the page's cart as it is now.
   */
  async submit(readIntent: () => CheckoutIntent | undefined): Promise<void> {
    if (this.#refusal || this.#proposing) return;
    const state = this.#state;
    const newAttempt =
      state.status === 'idle' || (state.status === 'error' && state.cause === 'cart' && !state.retryable);
    if (!newAttempt) return state.status === 'error' ? this.#retry() : undefined;
    const intent = readIntent();
    if (!intent) return;
    const attempt = draftAttempt(intent, this.#settings, this.#env.now());
    if (typeof attempt === 'string') return this.refuse(attempt);
    // Listeners get a copy of exactly the bytes that will be sent.
    this.#proposing = true;
    const proceed = this.#fire('pay-submit', { intent: JSON.parse(attempt.body) }, attempt);
    this.#proposing = false;
    if (!proceed) return;
    this.#attempts.current = attempt;
    // The state, and with it the key, is stored before the first byte leaves.
    this.#move({ type: 'submit' });
    await this.#sendCreate(true);
  }

  /**
   * A new attempt with a new key; the stored one is forgotten. Out of a
   * refusal too (`reset()`): the page may have fixed its setup. False
   * (nothing done) while a create is in flight.
   */
  restart(): boolean {
    if (this.#state.status === 'submitting') return false;
    this.#refusal = undefined;
    this.#stopWork();
    this.#attempts.forget();
    this.#move({ type: 'restart' });
    return true;
  }

  /** Follows an order created elsewhere, as a new attempt; a `TypeError` for a malformed id or token. */
  resume({ orderId, lookupToken }: { orderId: string; lookupToken: string }): void {
    if (!ORDER_ID_PATTERN.test(orderId) || !lookupToken) {
      throw new TypeError('resume() needs an orderId and a lookupToken.');
    }
    if (this.#refusal || this.#state.status === 'submitting') return;
    if (!this.#settings.lookupUrl) return void this.refuse('missing_url');
    this.#stopWork();
    const basics = attemptBasics(this.#env.now(), this.#settings);
    this.#attempts.current = createdAttempt(basics, orderId, lookupToken, this.#deadline());
    this.#move({ type: 'resume' });
    this.#waitForPayer();
  }

  /** Polls the same order for another `poll-timeout` ("Check again"): never a new create. Bound: a view may pass it as a listener. */
  readonly checkAgain = (): void => {
    if (this.#move({ type: 'check_again' })) this.#pollAgain();
  };

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
    else this.#attempts.forget();
  }

  /** Sends the current draft's create. `firstRun`: the attempt's key was never sent before. */
  #sendCreate(firstRun?: boolean): Promise<void> {
    return this.#create.start(this.#attempts.current as CheckoutAttempt<DraftAttempt>, firstRun);
  }

  /** A payment status from a create or a lookup: a final one settles the attempt; then the machine moves. */
  #reached(order: LookupAnswer['order'], type: 'created' | 'polled'): void {
    const { id: orderId, payment } = order;
    const paymentStatus = payment.status;
    const outcome = classifyPaymentStatus(paymentStatus);
    // Only a reason the checkout has words for is kept, whatever the relay sent.
    const failureCode = paymentFailureCode(payment.failure_code);
    const created = this.#attempts.current as CheckoutAttempt<CreatedAttempt>;
    if (outcome !== 'pending') this.#attempts.current = settledAttempt(created, paymentStatus, failureCode);
    this.#move({ type, paymentStatus });
    if (outcome === 'paid') this.#fire('pay-paid', { orderId, order });
    else if (outcome === 'failed') this.#fire('pay-failed', { orderId, paymentStatus, failureCode });
    else this.#waitForPayer();
  }

  /** Back to waiting for the same order, with a new `poll-timeout`. */
  #pollAgain(): void {
    (this.#attempts.current as CheckoutAttempt<CreatedAttempt>).deadline = this.#deadline();
    this.#attempts.save(this.#state);
    this.#waitForPayer();
  }

  /** `pay-requires-action` (once per attempt), and polling until the deadline unless it already runs. */
  #waitForPayer(): void {
    const attempt = this.#attempts.current;
    if (attempt?.phase !== 'created' || this.#state.status !== 'requires_action') return;
    this.#fire('pay-requires-action', { orderId: attempt.orderId });
    if (!this.#poll.running) this.#poll.start(attempt, this.#settings.pollInterval);
  }

  #stopWork(): void {
    this.#create.stop();
    this.#poll.stop();
  }

  /** Applies an event to the machine; on a change stores the attempt and tells the host. True on a change. */
  #move(event: CheckoutEvent): boolean {
    const previous = this.#state;
    const next = transition(previous, event);
    if (next === previous) return false;
    this.#state = next;
    if (next.status !== 'requires_action') this.#poll.stop();
    this.#attempts.save(this.#state);
    if (next.status === previous.status) {
      // Same screen, new context (a refusal over an error): the view only redraws.
      this.#host.requestUpdate();
    } else {
      this.#host.stateChanged(previous.status);
      this.#host.dispatch('pay-state-change', { state: next.status, previous: previous.status });
    }
    return true;
  }

  /** Fires a contract event at most once per attempt (`pay-state-change` aside). */
  #fire<Name extends PayCheckoutEventName>(
    name: Name,
    detail: PayCheckoutEventDetails[Name],
    attempt = this.#attempts.current,
  ): boolean {
    return !this.#attempts.once(name, this.#state, attempt) || this.#host.dispatch(name, detail);
  }

  #deadline(): number {
    return this.#env.now() + pollTimeoutMs(this.#settings.pollTimeout);
  }
  #request(signal: AbortSignal): RequestOptions {
    return { ...this.#env, signal };
  }
}
