/**
 * One checkout, without the DOM or Lit: it moves the state machine, keeps
 * the attempt with its state as one value (a `Checkout`) and in storage,
 * and applies what its create run (`create-run.ts`), its poller
 * (`poll-controller.ts`) and the lookups of its other open orders
 * (`other-orders.ts`) report. The element owns a session, hands it the
 * shopper's actions and renders what it reports through its host. Lit's
 * `Task` is the model: a status held with its value, an `AbortController`
 * per run, only the latest run writes.
 */
import { classifyPaymentStatus, ORDER_ID_PATTERN, paymentFailureCode } from '../shared/service-contract.js';
import type { CheckoutIntent, LookupAnswer, LookupRequest, OrderAmount } from '../shared/wire.js';
import { AttemptStore } from './attempt-store.js';
import { cartFingerprint } from './cart-fingerprint.js';
import { createOrder, lookupOrder, priceCart, type RequestOptions } from './checkout-api.js';
import {
  type AttemptBasics,
  type AttemptFacts,
  alsoPaid,
  attemptBasics,
  type Checkout,
  type CheckoutAttempt,
  type CreatedAttempt,
  chargeOf,
  checkoutIn,
  createdAttempt,
  draftAttempt,
  type SettledAttempt,
  settledAttempt,
  withChargedAmount,
} from './checkout-attempt.js';
import { createBody } from './checkout-form.js';
import { type CheckoutEvent, type MachineState, transition } from './checkout-machine.js';
import { CreateRun } from './create-run.js';
import { PRICE_DEBOUNCE_MS } from './defaults.js';
import type { PayCheckoutEventDetails, PayCheckoutEventName } from './events.js';
import { OtherOrders } from './other-orders.js';
import { type Connection, PollController } from './poll-controller.js';
import {
  type CheckoutEnvironment,
  type CheckoutSessionHost,
  type CheckoutSettings,
  pollTimeoutMs,
  REFUSAL_MESSAGES,
  type Refusal,
} from './session-host.js';
import { readAmount } from './wire-guards.js';

/** What the relay priced a cart at (`price-url`): the amount, and the items priced. */
interface Priced {
  cart: number | undefined;
  amount: OrderAmount;
  items?: string[];
}

/** The checkout's state and attempt, its network runs and timers. */
export class CheckoutSession {
  /** Where the checkout stands and the attempt it stands in: one value, replaced whole on every move. */
  #checkout: Checkout = { phase: 'none', state: { status: 'idle' } };
  readonly #store: AttemptStore;
  #refusal: Refusal | undefined;
  readonly #reportedRefusals = new Set<Refusal>();
  /** Set while `pay-submit` listeners run: a `submit()` from one of them is ignored. */
  #proposing = false;
  readonly #settings: CheckoutSettings;
  readonly #host: CheckoutSessionHost;
  readonly #env: CheckoutEnvironment;
  readonly #create: CreateRun;
  readonly #poll: PollController;
  /** The checkout's earlier orders still open, watched until they settle. */
  readonly #others: OtherOrders;
  /** What the relay charged the checkout's last order, for the form again after it ("Try again", "Use another number"). */
  #charged: AttemptBasics | undefined;
  /** What the relay last priced the page's cart at: the button's amount, the create's `expected_amount`. */
  #priced: Priced | undefined;
  /** The price request in flight: only the latest one's answer counts. */
  #pricing: AbortController | undefined;
  #priceTimer: unknown;
  /** True on the form after the relay priced the cart otherwise than the button said (`409` `amount_changed`); any move clears it. */
  amountChanged = false;

  /** `settings` is read each time it is needed (the element itself): attributes change at any time. */
  constructor(settings: CheckoutSettings, host: CheckoutSessionHost, environment: CheckoutEnvironment) {
    this.#settings = settings;
    this.#host = host;
    this.#env = environment;
    this.#store = new AttemptStore(environment.storage, () => host.storageKey());
    const lookup = (request: LookupRequest, signal: AbortSignal) =>
      lookupOrder(settings.lookupUrl, request, this.#request(signal));
    this.#create = new CreateRun({
      create: ({ body, idempotencyKey }, signal) =>
        createOrder(settings.createUrl, body, idempotencyKey, this.#request(signal)),
      onCreated: (draft, { order, lookup_token, reference }) => {
        const { id: orderId, status, payment } = order;
        const created = withChargedAmount(
          // Read as the schema reads it: anything but a string is no reference.
          {
            ...createdAttempt(draft, orderId, lookup_token, this.#deadline()),
            reference: typeof reference === 'string' ? reference : null,
          },
          order.amount,
        );
        const detail = { orderId, status, paymentStatus: payment.status, ...chargeOf(created) };
        this.#reached(order, 'created', this.#fire('pay-created', detail, created));
      },
      onFieldRefused: (field, refusal) => {
        // Refused input created nothing: back to the form, which holds no attempt, and a new key next time.
        this.#move({ type: 'rejected' }, undefined);
        this.#host.fieldRefused(field, refusal);
      },
      onAmountChanged: (amount, error) => {
        // Nothing was sent to the shopper's phone: back to the form, at the relay's price, and a new key next time.
        const { cart } = this.#checkout as AttemptBasics;
        this.#move({ type: 'rejected' }, undefined);
        // The same cart, so the same items: only their price changed.
        this.#priced = { ...this.#priced, cart, amount };
        this.amountChanged = true;
        this.#host.dispatch('pay-error', error);
      },
      onFailed: (error, cartMessage, newKey) => {
        const event: CheckoutEvent = { type: 'create_failed', retryable: error.retryable, cartMessage };
        this.#move(event, newKey ? undefined : this.attempt);
        this.#fire('pay-error', error);
      },
    });
    this.#poll = new PollController(
      {
        lookup,
        onAnswer: (order) => this.#reached(order, 'polled', this.attempt),
        onGiveUp: ({ code, message }) => {
          // The order exists, so the error screen tells the shopper not to pay again.
          this.#move({ type: 'poll_failed' }, this.attempt);
          this.#fire('pay-error', { code, message, retryable: false });
        },
        onTimeout: () => {
          const { attempt } = this;
          if (attempt?.phase !== 'created' || !this.#move({ type: 'timed_out' }, attempt)) return;
          this.#fire('pay-timeout', { orderId: attempt.orderId });
          this.#keepChecking();
        },
        onChange: () => host.requestUpdate(),
      },
      environment,
    );
    this.#others = new OtherOrders(
      {
        lookup,
        onSettled: (other, order) => this.#otherSettled(other, order),
        onChange: () => {
          this.#store.saveOthers([...this.#others.keys()]);
          host.requestUpdate();
        },
      },
      environment,
      settings,
    );
  }

  /** Where the checkout stands, with its context. */
  get state(): MachineState {
    return this.#checkout.state;
  }

  /** The current attempt, in its state; undefined when there is none (the fresh form, a refusal). */
  get attempt(): CheckoutAttempt | undefined {
    const checkout = this.#checkout;
    return checkout.phase === 'none' ? undefined : checkout;
  }

  /** How the lookups are getting through. */
  get connection(): Connection {
    return this.#poll.connection;
  }

  /** True while another order of the checkout is still open: its prompt may still reach the payer. */
  get othersOpen(): boolean {
    return this.#others.size > 0;
  }

  /**
   * The amount the form shows for `cart`: what the relay priced it at
   * (`price-url`), else what it charged the checkout's last order for the
   * same cart (the form again after a failure or "Use another number"),
   * else undefined, the page's `amount`.
   */
  formAmount(cart: unknown): Pick<AttemptBasics, 'amount' | 'items'> | undefined {
    return [this.#priced, this.#charged].find(
      (known) => known && (known.cart === undefined || known.cart === this.#fingerprint(cart)),
    );
  }

  /** Whole seconds left for the payer to approve, never negative. */
  get secondsLeft(): number {
    const checkout = this.#checkout;
    const deadline = checkout.phase === 'created' ? checkout.deadline : 0;
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

  /** Picks up the attempt a reload left behind (`persist="session"`). No events: nothing new happened. */
  restore(): void {
    this.#checkout = this.#store.load() ?? this.#checkout;
    for (const other of this.#store.loadOthers()) this.#others.add(other);
  }

  /** Carries on with the attempt in hand (resends its create, or polls its order) and watches the other open orders. */
  carryOn(): void {
    if (this.#refusal) return;
    this.#others.run(true);
    const { status } = this.#checkout.state;
    if (status === 'submitting' && !this.#create.running) void this.#sendCreate();
    if (status === 'requires_action') this.#waitForPayer();
    this.#keepChecking();
  }

  /**
   * Sends the form once `readIntent` found it valid: `pay-submit`, then one
   * create. In `error`, "Try again"; after a cart refused on the attempt's
   * first try, a new attempt with the page's cart as it is now.
   */
  async submit(readIntent: () => CheckoutIntent | undefined): Promise<void> {
    if (this.#refusal || this.#proposing) return;
    const { state } = this.#checkout;
    const newAttempt =
      state.status === 'idle' || (state.status === 'error' && state.cause === 'cart' && !state.retryable);
    if (!newAttempt) return state.status === 'error' ? this.#retry() : undefined;
    const read = readIntent();
    if (!read) return;
    const { checkout } = this.#settings;
    // A server-created checkout goes in place of the cart: the relay prices what it stored.
    const intent: CheckoutIntent = checkout ? { ...read, cart: undefined, checkout } : read;
    // The same number again while its earlier prompt may still be approved: that order again, no second prompt.
    const open = this.#others.withNumber(intent.payment_method_data.mobile_money.number);
    if (open) return this.#takeUp(open);
    const draft = draftAttempt(intent, this.#settings, this.#env.now());
    if (typeof draft === 'string') return this.refuse(draft);
    if (this.#priceUrl) {
      // The relay's price of this cart, or what it charged an earlier order of it, with their items.
      const { amount, items } = this.formAmount(intent.cart) ?? draft;
      Object.assign(draft, { amount, items });
      // The amount on the button goes with the create, the relay's or the page's placeholder:
      // a relay that prices the cart otherwise refuses before any prompt.
      if (amount) draft.body = createBody({ ...intent, expected_amount: amount }) as string;
    }
    // Listeners get a copy of exactly the bytes that will be sent.
    this.#proposing = true;
    const submitted = this.#fire('pay-submit', { intent: JSON.parse(draft.body) }, draft);
    this.#proposing = false;
    if (!submitted) return;
    // The draft in its state, and with it the key, is stored before the first byte leaves.
    this.#move({ type: 'submit' }, submitted);
    await this.#sendCreate(true);
  }

  /**
   * A new attempt with a new key; the stored one is forgotten. In the same
   * checkout ("Use another number", "Try again" after `failed`), an order
   * still waiting for its payer is watched on with the others;
   * otherwise (`reset()`, a new cart) they are all forgotten. Out of a
   * refusal too: the page may have fixed its setup. False (nothing done)
   * while a create is in flight.
   */
  restart(sameCheckout?: boolean): boolean {
    const checkout = this.#checkout;
    if (checkout.state.status === 'submitting') return false;
    this.#refusal = undefined;
    if (!sameCheckout) this.#others.clear();
    else this.#watchAsOther(checkout);
    // The order's amount is the relay's (or the page's, with a relay that sends none): the form keeps showing it.
    this.#charged =
      sameCheckout && checkout.phase !== 'none' && checkout.phase !== 'draft' ? checkout : undefined;
    this.#store.forget(); // Even on a fresh form, where the move changes nothing.
    // Leaving `requires_action` stops its poll; nothing else runs outside `submitting`.
    this.#move({ type: 'restart' }, undefined);
    return true;
  }

  /**
   * The page set its cart: a settled checkout made for another
   * cart is dropped, for a fresh form; one that may still be paid is kept.
   * True when dropped.
   */
  cartSet(cart: unknown): boolean {
    this.#price(cart);
    const checkout = this.#checkout;
    // Settled only once no other order of the checkout may still be paid: a second payment is told.
    const settled = checkout.phase === 'settled' && !this.othersOpen;
    return (
      settled && checkout.cart !== undefined && checkout.cart !== this.#fingerprint(cart) && this.restart()
    );
  }

  /**
   * Asks the relay (`price-url`) to price `cart` once the page stops setting
   * it; a later cart aborts the request in flight. A request that fails keeps
   * what the button showed: the create still works, and the relay still decides.
   */
  #price(cart: unknown): void {
    const env = this.#env;
    const url = this.#priceUrl;
    env.clearTimeout(this.#priceTimer);
    if (!url) return;
    this.#priceTimer = env.setTimeout(async () => {
      // The cart as it was asked about: a page may change the same object while the answer travels.
      const fingerprint = this.#fingerprint(cart);
      const { checkout } = this.#settings;
      this.#pricing?.abort();
      const run = new AbortController();
      this.#pricing = run;
      try {
        const request = checkout ? { checkout } : { cart };
        const { amount, line_items } = await priceCart(url, request, this.#request(run.signal));
        if (this.#pricing !== run) return;
        const items = line_items.map(({ name, quantity }) => `${name} × ${quantity}`);
        // The amount as the guard reads it: its two fields, whatever else the answer carried.
        this.#priced = { cart: fingerprint, amount: readAmount(amount) as OrderAmount, items };
        this.#host.requestUpdate();
      } catch {}
    }, PRICE_DEBOUNCE_MS);
  }

  /** Follows an order created elsewhere, as a new attempt; a `TypeError` for a malformed id or token. */
  resume({ orderId, lookupToken }: { orderId: string; lookupToken: string }): void {
    if (!ORDER_ID_PATTERN.test(orderId) || !lookupToken) {
      throw new TypeError('resume() needs an orderId and a lookupToken.');
    }
    if (this.#refusal || this.#checkout.state.status === 'submitting') return;
    if (!this.#settings.lookupUrl) return void this.refuse('missing_url');
    // No create runs outside `submitting`; the checkout's other orders are still watched.
    this.#poll.stop();
    const basics = attemptBasics(this.#env.now(), this.#settings);
    this.#move({ type: 'resume' }, createdAttempt(basics, orderId, lookupToken, this.#deadline()));
    this.#waitForPayer();
  }

  /** Polls the same order for another `poll-timeout` ("Check again"): never a new create. Bound: a view may pass it as a listener. */
  readonly checkAgain = (): void => {
    if (this.#move({ type: 'check_again' }, this.attempt)) this.#pollAgain();
  };

  /** Stops everything for a configuration the shopper cannot fix, and says so once per reason. */
  refuse(refusal: Refusal): void {
    if (this.#refusal === refusal) return;
    this.#refusal = refusal;
    this.#stopWork();
    this.#move({ type: 'misconfigured' }, undefined);
    if (this.#reportedRefusals.has(refusal)) return;
    this.#reportedRefusals.add(refusal);
    this.#host.dispatch('pay-error', { code: refusal, message: REFUSAL_MESSAGES[refusal], retryable: false });
  }

  /** "Try again" in `error`: the same create under the same key, the same order read again, or a fresh form. */
  #retry(): void {
    if (!this.#move({ type: 'submit' }, this.attempt)) return;
    // Or a fresh form: the move dropped the attempt, and its stored copy.
    const { status } = this.#checkout.state;
    if (status === 'submitting') void this.#sendCreate();
    else if (status === 'requires_action') this.#pollAgain();
  }

  /** Sends the current draft's create. `firstRun`: the attempt's key was never sent before. */
  async #sendCreate(firstRun?: boolean): Promise<void> {
    if (this.#checkout.phase === 'draft') await this.#create.start(this.#checkout, firstRun);
  }

  /** A payment status from a create or a lookup of `created`: a final one settles it as the machine moves. */
  #reached(
    order: LookupAnswer['order'],
    type: 'created' | 'polled' | 'other_paid',
    created: AttemptFacts | undefined,
  ): void {
    // Only a created attempt is polled, the checkout's own or another of its orders.
    if (created?.phase !== 'created') return;
    const { id: orderId, payment } = order;
    const paymentStatus = payment.status;
    const outcome = classifyPaymentStatus(paymentStatus);
    // Only a reason the checkout has words for is kept, whatever the relay sent.
    const failureCode = paymentFailureCode(payment.failure_code);
    const charged = withChargedAmount(created, order.amount);
    // The receipt's time: the relay's, else now (an older relay, or one that sends none).
    const settledAt = Date.parse(order.completed_at as string) || this.#env.now();
    const attempt =
      outcome === 'pending' ? charged : settledAttempt(charged, paymentStatus, failureCode, settledAt);
    this.#move({ type, paymentStatus }, attempt);
    if (outcome === 'paid') this.#fire('pay-paid', { orderId, order, ...chargeOf(attempt) });
    else if (outcome === 'failed') this.#fire('pay-failed', { orderId, paymentStatus, failureCode });
    else this.#waitForPayer();
  }

  /** Back to waiting for the same order, with a new `poll-timeout`. */
  #pollAgain(): void {
    const checkout = this.#checkout;
    if (checkout.phase !== 'created') return;
    this.#checkout = { ...checkout, deadline: this.#deadline() };
    this.#store.save(this.#checkout);
    // The timeout screen's own checks stop: the poll starts again, with the new deadline.
    this.#poll.stop();
    this.#waitForPayer();
  }

  /** On the timeout screen: the order is still looked up at the interval, with no deadline, until it settles or the shopper leaves. */
  #keepChecking(): void {
    const checkout = this.#checkout;
    if (checkout.phase !== 'created' || checkout.state.status !== 'timeout' || this.#poll.running) return;
    this.#poll.start({ ...checkout, deadline: Number.POSITIVE_INFINITY }, this.#settings.pollInterval);
  }

  /** Takes an open order of the checkout up again as its attempt (the same number given again): its screen, no event, no new prompt. */
  #takeUp(other: CreatedAttempt): void {
    this.#others.take(other);
    this.#move({ type: 'resume' }, { ...other, again: true });
    this.#waitForPayer();
  }

  /** `pay-requires-action` (once per attempt), and polling until the deadline unless it already runs. */
  #waitForPayer(): void {
    const checkout = this.#checkout;
    if (checkout.phase !== 'created' || checkout.state.status !== 'requires_action') return;
    this.#fire('pay-requires-action', { orderId: checkout.orderId });
    if (!this.#poll.running) this.#poll.start(checkout, this.#settings.pollInterval);
  }

  /**
   * Another order of the checkout settled: a failed one is
   * only forgotten; the first paid wins. Its receipt replaces the screen,
   * `pay-paid` fires once for it, and the order on screen, if still
   * waiting, is watched with the others, so the receipt tells the shopper
   * to decline its prompt. While a create is in flight, whose order must be
   * known first, the next lookup brings it again: true, keep watching. A
   * second paid order is told, not hidden: the receipt names it, and
   * `pay-paid` fires for it with `otherPaidOrderIds`.
   */
  #otherSettled(other: CreatedAttempt, order: LookupAnswer['order']): boolean {
    const current = this.#checkout;
    const { status } = current.state;
    if (status === 'submitting') return true;
    if (classifyPaymentStatus(order.payment.status) !== 'paid') return false;
    if (current.phase === 'settled' && status === 'paid') this.#paidAgain(current, other, order);
    else {
      this.#watchAsOther(current);
      this.#reached(order, 'other_paid', other);
    }
    return false;
  }

  /**
   * Watches the checkout's order, when it has one whose payer may still
   * approve, with its others: the checkout moves on from it. One whose
   * `poll-timeout` passed (the timeout screen) is watched for another.
   */
  #watchAsOther(checkout: Checkout): void {
    if (checkout.phase !== 'created') return;
    this.#others.add(
      checkout.deadline > this.#env.now() ? checkout : { ...checkout, deadline: this.#deadline() },
    );
  }

  /** Another order of a paid checkout was paid too: on the receipt and in storage, then `pay-paid` once for it, naming the earlier ones. */
  #paidAgain(current: SettledAttempt, other: CreatedAttempt, order: LookupAnswer['order']): void {
    const earlier = current.alsoPaid ?? [];
    if (order.id === current.orderId || earlier.some((paid) => paid.orderId === order.id)) return;
    const charged = withChargedAmount(other, order.amount);
    this.#checkout = { ...current, alsoPaid: [...earlier, alsoPaid(charged)] };
    this.#store.save(this.#checkout);
    this.#host.requestUpdate();
    const otherPaidOrderIds = [current.orderId, ...earlier.map((paid) => paid.orderId)];
    this.#host.dispatch('pay-paid', { orderId: order.id, order, ...chargeOf(charged), otherPaidOrderIds });
  }

  /** Stops every request and timer: off the page, a refusal, another checkout. */
  #stopWork(): void {
    this.#env.clearTimeout(this.#priceTimer);
    this.#pricing?.abort();
    this.#create.stop();
    this.#poll.stop();
    this.#others.run(false);
  }

  /** Moves the machine, with `attempt` (the current one, a new one or none) in its new state; stores it, tells the host. True on a change. */
  #move(event: CheckoutEvent, attempt: AttemptFacts | undefined): boolean {
    const { state: previous } = this.#checkout;
    const next = transition(previous, event);
    if (next === previous && attempt === this.attempt) return false;
    this.#checkout = checkoutIn(next, attempt);
    this.amountChanged = false;
    if (next.status !== 'requires_action' && next.status !== 'timeout') this.#poll.stop();
    this.#store.save(this.#checkout);
    if (next.status === previous.status) {
      // Same screen, new context (a refusal over an error): the view only redraws.
      this.#host.requestUpdate();
    } else {
      this.#host.stateChanged(previous.status);
      this.#host.dispatch('pay-state-change', { state: next.status, previous: previous.status });
    }
    return true;
  }

  /**
   * Fires a contract event at most once per `attempt`, the current one or
   * the next move's (`pay-state-change` aside): the attempt as it is after,
   * remembering it, or undefined when a listener cancelled it (`pay-submit`,
   * the one event that can be) or there is no attempt.
   */
  #fire<Name extends PayCheckoutEventName>(
    name: Name,
    detail: PayCheckoutEventDetails[Name],
    attempt: AttemptFacts | undefined = this.attempt,
  ): AttemptFacts | undefined {
    if (attempt?.fired.includes(name)) return attempt;
    // A copy that remembers it: an attempt in hand (a listener's, the view's) is never changed.
    const fired = attempt && { ...attempt, fired: [...attempt.fired, name] };
    // Stored before listeners run: a reload they cause does not fire it again.
    if (attempt === this.#checkout) {
      this.#checkout = fired as CheckoutAttempt;
      this.#store.save(this.#checkout);
    }
    return this.#host.dispatch(name, detail) ? fired : undefined;
  }

  /**
   * The fingerprint an attempt made now keeps (`cart`): of the server-created
   * checkout (`checkout`), else of the page's cart.
   */
  #fingerprint(cart: unknown): number {
    return cartFingerprint(this.#settings.checkout || cart);
  }

  /** Where prices are asked: `price-url`, else for a server-created checkout `price` beside `create-url` (`…/orders`, `…/price`). */
  get #priceUrl(): string | undefined {
    const { priceUrl, checkout, createUrl } = this.#settings;
    // No create URL, no price: the checkout refuses to work on submit.
    return priceUrl || (checkout && createUrl ? createUrl.replace(/[^/?]*(\?.*)?$/, 'price') : undefined);
  }

  #deadline(): number {
    return this.#env.now() + pollTimeoutMs(this.#settings.pollTimeout);
  }
  #request(signal: AbortSignal): RequestOptions {
    return { ...this.#env, signal };
  }
}
