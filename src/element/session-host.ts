/**
 * What a checkout session needs from its element, and how it reports back:
 * the element implements `CheckoutSessionHost`, tests implement it with a
 * recorder. Kept apart from the session so the contract between the two
 * reads on one page.
 */

import type { Clock } from '../shared/clock.js';
import type { AttemptStorage } from './attempt-store.js';
import type { RequestOptions } from './checkout-api.js';
import type { FieldName, FieldRefusal } from './checkout-form.js';
import type { CheckoutState } from './checkout-machine.js';
import { POLL_TIMEOUT_DEFAULT_MS } from './defaults.js';
import type { PayCheckoutEventDetails, PayCheckoutEventName } from './events.js';
import type { PageSignals } from './page-signals.js';

/** Why the checkout refuses to work: a configuration the shopper cannot fix. */
export type Refusal = 'secret_key_exposed' | 'missing_url' | 'invalid_cart';

/** What `pay-error` says for each refusal: for the page's developer, never showing a key. */
export const REFUSAL_MESSAGES: Record<Refusal, string> = {
  secret_key_exposed: 'A secret key is on the page: remove it and rotate it.',
  missing_url: 'create-url and lookup-url are required.',
  invalid_cart: 'cart (or cart-json) is not JSON.',
};

/** The element's settings the session reads, each time it needs them. */
export interface CheckoutSettings {
  createUrl: string;
  lookupUrl: string;
  /** The relay's price route (`price-url`): '' asks no price, and the page's `amount` is shown until an order has one. */
  priceUrl?: string;
  /** A server-created checkout's client secret (`checkout`): priced and created in place of the cart. */
  checkout?: string | undefined;
  /** `poll-interval`, ms; clamped by the poller. */
  pollInterval: number;
  /** `poll-timeout`, ms; POLL_TIMEOUT_DEFAULT_MS when not a positive number. */
  pollTimeout: number;
  /** The page's amount: what an attempt shows until the relay answers the one it charges. */
  amount: number | undefined;
  currency: string;
}

/** How the session reports to its element. */
export interface CheckoutSessionHost {
  /** Dispatches a contract event; false when a listener cancelled it (`pay-submit`). */
  dispatch<Name extends PayCheckoutEventName>(name: Name, detail: PayCheckoutEventDetails[Name]): boolean;
  /** The state changed from `previous`; `pay-state-change` follows at once. */
  stateChanged(previous: CheckoutState): void;
  /** Something else the view shows changed: the connection, the time left, the state's context. */
  requestUpdate(): void;
  /** The relay refused a field (`400` with `param`): the session is back in `idle`, nothing was created. */
  fieldRefused(field: FieldName, refusal?: FieldRefusal): void;
  /** The attempt's key in storage, read at each use; undefined keeps nothing (`persist="none"`). */
  storageKey(): string | undefined;
}

/**
 * What a session runs on, in one object: a clock, the page's visibility and
 * connectivity, storage for the attempt and the options of every call to the
 * relay (`fetch`, `retries`, `timeoutMs`). The element hands it the browser's
 * own; tests hand it fakes.
 */
export interface CheckoutEnvironment extends Clock, PageSignals, Omit<RequestOptions, 'signal'> {
  /** Where attempts are kept (`sessionStorage`); undefined keeps nothing. */
  storage?: AttemptStorage | undefined;
}

/** Milliseconds to wait for the payer: `poll-timeout`, or the default when it is not a positive number. */
export function pollTimeoutMs(pollTimeout: number): number {
  return Number.isFinite(pollTimeout) && pollTimeout > 0 ? pollTimeout : POLL_TIMEOUT_DEFAULT_MS;
}
