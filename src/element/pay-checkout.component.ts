import { LitElement, type PropertyDeclarations, type PropertyValues, type TemplateResult } from 'lit';
import { systemClock } from '../shared/clock.js';
import { attemptStorageKey, sessionStorageIfAvailable } from './attempt-store.js';
import { pageAmount } from './checkout-attempt.js';
import { CheckoutFormController } from './checkout-form-controller.js';
import type { CheckoutState } from './checkout-machine.js';
import { CheckoutSession } from './checkout-session.js';
import { DEFAULT_CURRENCY, POLL_INTERVAL_DEFAULT_MS, POLL_TIMEOUT_DEFAULT_MS } from './defaults.js';
import { dispatchPayEvent } from './events.js';
import { formatAmount } from './format-amount.js';
import { allowedIssuers } from './issuers.js';
import { loadStrings, resolveStrings } from './locale/loader.js';
import type { PayCheckoutStrings } from './locale/strings.js';
import { browserPage } from './page-signals.js';
import { payCheckoutStyles } from './pay-checkout.styles.js';
import { renderCheckout } from './pay-checkout.templates.js';
import { containsSecretKey } from './secret-key-guard.js';
import { CART_NOT_JSON, cartFromAttribute } from './server-rendered-cart.js';

/**
 * A mobile-money checkout: collects the payer's name, number and network,
 * creates the order once through the merchant's relay, waits for the payer to
 * approve on their phone, and shows every outcome.
 *
 * @summary Mobile-money checkout (MTN, Telecel, AT) for Ghana.
 *
 * @fires pay-submit - Before the create call; cancelable. `detail: { intent }`.
 * @fires pay-created - The order exists. `detail: { orderId, status, paymentStatus, amount, reference }` (`amount` the relay's, else the page's).
 * @fires pay-requires-action - The payment waits for the payer. `detail: { orderId }`.
 * @fires pay-paid - The payment is paid: the first of the checkout's orders paid; again only for another order paid too, with `otherPaidOrderIds` naming those paid before. `detail: { orderId, order, amount, reference, otherPaidOrderIds? }`.
 * @fires pay-failed - The payment failed for good. `detail: { orderId, paymentStatus, failureCode }`.
 * @fires pay-timeout - `poll-timeout` passed without an outcome. `detail: { orderId }`.
 * @fires pay-error - A retryable or configuration error, a refused cart (`cart_rejected`), a server-created checkout the relay refused (`checkout_not_found`, `checkout_paid`, `checkout_expired`), or a price the relay changed (`amount_changed`). `detail: { code, message, retryable }`.
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

  // Declared here, typed and documented once below, defaulted in the constructor:
  // with `useDefineForClassFields`, a field initializer would hide Lit's accessors.
  static override properties: PropertyDeclarations = {
    createUrl: { attribute: 'create-url' },
    lookupUrl: { attribute: 'lookup-url' },
    priceUrl: { attribute: 'price-url' },
    checkout: {},
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
    // Server-rendered HTML carries the cart as JSON text. Not `cart`: React, Preact, Vue and Svelte set a
    // name the element has as a property, which would make the cart that text, a string.
    cart: { attribute: 'cart-json', converter: cartFromAttribute },
    strings: { attribute: false },
    state: { reflect: true },
  };

  readonly #form = new CheckoutFormController(this);

  readonly #session = new CheckoutSession(
    this,
    {
      dispatch: (name, detail) => dispatchPayEvent(this, name, detail),
      stateChanged: () => this.#onStateChange(),
      requestUpdate: () => this.requestUpdate(),
      fieldRefused: (field, refusal) => this.#form.refuse(field, refusal),
      storageKey: () =>
        this.persist === 'none' || !this.createUrl ? undefined : attemptStorageKey(this.createUrl, this.id),
    },
    { ...systemClock, ...browserPage, storage: sessionStorageIfAvailable() },
  );

  /** Where the relay's create endpoint is. Required. */
  declare createUrl: string;
  /** Where the relay's lookup endpoint is. Required. */
  declare lookupUrl: string;
  /** Where the relay's price route is: the Pay button shows its price of the cart, and the create sends it as `expected_amount`. */
  declare priceUrl: string;
  /**
   * A checkout the merchant's server created (`relay.checkouts.create`, or
   * `POST /v1/checkouts` of `pay-checkout serve`), by its client secret: the
   * relay prices it from what it stored, and the create sends it in place of
   * `cart`. Without `price-url`, prices are asked at `price` beside `create-url`.
   */
  declare checkout: string | undefined;
  /** Amount in minor units (5000 = GH₵ 50.00), for display only: the server decides what is charged. With `price-url`, the placeholder until the relay's price arrives. */
  declare amount: number | undefined;
  /** Lowercase currency code. */
  declare currency: string;
  /** `en` or `fr`; by default the nearest `lang`, then English. */
  declare locale: string | undefined;
  /** Comma list of the networks offered (`mtn,telecel`); all by default. */
  declare issuers: string | undefined;
  /** Prefills the name (`customer-name`). */
  declare customerName: string;
  /** Prefills the number, local or `+233` form. */
  declare phone: string;
  /** Milliseconds between lookups (`poll-interval`), clamped to 2000–5000. */
  declare pollInterval: number;
  /** Milliseconds to wait for the payer before `timeout` (`poll-timeout`). */
  declare pollTimeout: number;
  /** `session` (default) keeps the attempt across reloads in `sessionStorage`; `none` keeps nothing (any other attribute value counts as `session`). */
  declare persist: 'session' | 'none';
  /** Disables the form. */
  declare disabled: boolean;
  /**
   * Any JSON for the merchant's server to price; sent as `cart`. The
   * `cart-json` attribute takes the same as JSON text, for server-rendered
   * HTML: the last write wins, attribute or property, and an attribute that
   * is not JSON makes the element refuse to work (`pay-error` `invalid_cart`).
   */
  declare cart: unknown;
  /** Overrides any of the element's texts. */
  declare strings: Partial<PayCheckoutStrings> | undefined;
  /** The checkout state, reflected as the `state` attribute. Read-only: a write is undone. */
  declare state: CheckoutState;

  constructor() {
    super();
    this.createUrl = '';
    this.lookupUrl = '';
    this.priceUrl = '';
    this.currency = DEFAULT_CURRENCY;
    this.customerName = '';
    this.phone = '';
    this.pollInterval = POLL_INTERVAL_DEFAULT_MS;
    this.pollTimeout = POLL_TIMEOUT_DEFAULT_MS;
    this.persist = 'session';
    this.disabled = false;
    this.cart = null;
    this.state = 'idle';
    // The session follows the element on and off the page: it polls only while connected.
    this.addController(this.#session);
  }

  /** Holds each render until the locale's texts are here, so a French page never flashes English. */
  protected override scheduleUpdate(): ReturnType<LitElement['scheduleUpdate']> {
    const loading = loadStrings(this.#locale);
    if (!loading) return super.scheduleUpdate();
    return loading.then(() => super.scheduleUpdate());
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (!this.hasUpdated) this.#restore();
    // A settled checkout belongs to its cart, or its server-created checkout: a new one gets a fresh form.
    // Neither set, nothing dropped.
    if ((changed.has('cart') || changed.has('checkout')) && (this.checkout || this.cart != null))
      this.#session.cartSet(this.cart);
    // `state` is read-only: a write by the page is undone here (an equal value changes nothing).
    this.state = this.#session.state.status;
    // The contract has the element refuse a key however it arrives, set
    // properties included: the one event not caused by the shopper.
    // A cart-json attribute that is not JSON is as broken, and says so before the shopper types anything.
    if (!this.#refuseExposedKey() && this.cart === CART_NOT_JSON) this.#session.refuse('invalid_cart');
  }

  protected override firstUpdated(): void {
    this.#session.carryOn();
  }

  /** True while "Use another number" waits for the shopper to confirm: the earlier request may still be paid. */
  #confirming = false;

  /** "Use another number": first the question, then the form, the order left waiting watched on. */
  readonly #onUseAnotherNumber = (): void => {
    const confirmed = this.#confirming;
    this.#confirming = !confirmed;
    this.requestUpdate();
    if (!confirmed) this.#form.focus('confirm');
    else if (this.#session.restart(true)) this.#form.focus('number');
  };

  /** "Keep waiting": the question goes, focus back on "Use another number". */
  readonly #onKeepWaiting = (): void => {
    this.#confirming = false;
    this.requestUpdate();
    this.#form.focus('another');
  };

  /** "Try again": after `failed`, a new attempt; in `error`, whatever the error allows. */
  readonly #onTryAgain = (): void => {
    if (this.#session.state.status === 'failed') this.#session.restart(true);
    else void this.submit();
    // A fresh form (a new attempt, or a create that cannot work again): the shopper starts at its heading.
    if (this.#session.state.status === 'idle') this.#form.focus('heading');
  };

  /** A new state: reflect it, and move focus to the new screen's heading if focus was in the element. */
  #onStateChange(): void {
    const { status } = this.#session.state;
    this.state = status;
    this.#confirming = false;
    if (status === 'idle') this.#form.clearErrors();
    // A result arriving while the shopper reads elsewhere on the page does
    // not pull them back; focus lost with a button that re-rendered away counts as here.
    const focusWasHere = this.matches(':focus-within') || document.activeElement === document.body;
    const newScreen = status !== 'submitting' && status !== 'idle';
    this.#form.focus(newScreen && focusWasHere ? 'heading' : undefined);
  }

  /** Picks up a reload's attempt; a create still to be sent again shows what it sends, not the prefills. */
  #restore(): void {
    this.#session.restore();
    const attempt = this.#session.attempt;
    if (attempt?.phase === 'draft') this.#form.showSent(attempt);
  }

  /** Refuses to work when any attribute or declared property holds a secret key; true when it does. */
  #refuseExposedKey(): boolean {
    const exposed = containsSecretKey([
      Array.from(this.attributes, (attribute) => attribute.value),
      Object.keys(PayCheckout.properties).map((name) => this[name as keyof this]),
    ]);
    if (exposed) this.#session.refuse('secret_key_exposed');
    return exposed;
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

  /** Sends the form: validates it, fires `pay-submit`, creates the order once; in `error`, retries with the same key. */
  async submit(): Promise<void> {
    if (this.disabled || this.#refuseExposedKey()) return;
    await this.#session.submit(() => this.#form.check(this.cart));
  }

  /** Starts a new attempt with a new idempotency key and clears the stored one. Ignored while a create is in flight. */
  reset(): void {
    if (this.#refuseExposedKey() || !this.#session.restart()) return;
    this.#form.reset();
    this.#form.focus(this.matches(':focus-within') ? 'heading' : undefined);
  }

  /** Follows an order created elsewhere, as a new attempt; throws a `TypeError` for a malformed id or token. */
  resume(order: { orderId: string; lookupToken: string }): void {
    this.#session.resume(order);
  }

  override render(): TemplateResult {
    const locale = this.#locale;
    // The form's amount: the relay's once it priced this cart or charged an order of the checkout
    // for it, else the page's (the element's `amount` and `currency`).
    const known = this.#session.formAmount(this.cart);
    return renderCheckout({
      text: resolveStrings(locale, this.strings),
      locale,
      session: this.#session,
      form: this.#form,
      amount: formatAmount(known ? known.amount : pageAmount(this), locale),
      // A page with a cart shows it; one with a server-created checkout may know nothing of its items.
      items: this.checkout ? known?.items : undefined,
      issuers: allowedIssuers(this.issuers),
      disabled: this.disabled,
      confirming: this.#confirming,
      onUseAnotherNumber: this.#onUseAnotherNumber,
      onKeepWaiting: this.#onKeepWaiting,
      onTryAgain: this.#onTryAgain,
    });
  }
}
