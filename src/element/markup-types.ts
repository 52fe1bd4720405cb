/**
 * What a template may write on `<pay-checkout>`, for every framework's
 * typings (`pay-checkout/jsx`, `pay-checkout/preact`, `pay-checkout/vue`,
 * `pay-checkout/svelte`). Types only, and no framework's: each of those entries
 * adds its own framework's part, so an app never loads the types of a
 * framework it does not have.
 */
import type { PayCheckoutEventDetails, PayCheckoutEventName } from './events.js';
import type { PayCheckoutStrings } from './locale/strings.js';
import type { PayCheckout } from './pay-checkout.component.js';

/**
 * The element's attributes by their HTML names (they survive server
 * rendering), plus the two object properties. Frameworks that set a name as a
 * property when the upgraded element has one (React 19, Preact, Vue, Svelte)
 * pass `amount` and `cart` as properties, the other names as attributes.
 */
export interface PayCheckoutAttributes {
  /** The relay's create endpoint. Required for the element to work. */
  'create-url'?: string;
  /** The relay's lookup endpoint. Required for the element to work. */
  'lookup-url'?: string;
  /** The relay's price route: the Pay button shows the relay's amount for the cart, and the create sends it as `expected_amount`. */
  'price-url'?: string;
  /** A checkout the merchant's server created, by its client secret: the create sends it in place of the cart. */
  checkout?: string;
  /** Minor units (5000 = GH₵ 50.00), display only: the server decides what is charged. */
  amount?: number | string;
  /** Lowercase currency code; the element's default when absent. */
  currency?: string;
  /** `en` or `fr`; by default the nearest `lang`, then English. */
  locale?: string;
  /** Comma list of the networks offered (`mtn,telecel`). */
  issuers?: string;
  /** Prefills the payer's name. */
  'customer-name'?: string;
  /** Prefills the number, local or `+233` form. */
  phone?: string;
  /** Milliseconds between lookups, clamped to 2000–5000. */
  'poll-interval'?: number | string;
  /** Milliseconds to wait for the payer before `timeout`. */
  'poll-timeout'?: number | string;
  /** Where the attempt survives a reload. */
  persist?: PayCheckout['persist'];
  /** Disables the form. */
  disabled?: boolean;
  /** Any JSON for the merchant's server to price (a property: set it once the tag is defined). */
  cart?: unknown;
  /** The cart as JSON text, for server-rendered HTML where no script has set `cart` yet. */
  'cart-json'?: string;
  /** Overrides any of the element's texts (a property). */
  strings?: Partial<PayCheckoutStrings>;
}

/**
 * One listener per event, named `${Prefix}${event}`: `onpay-paid` for React
 * 19, Preact and Svelte 5, `on:pay-paid` for Svelte 4.
 */
export type PayCheckoutEventListeners<Prefix extends string> = {
  [Name in PayCheckoutEventName as `${Prefix}${Name}`]?: (
    event: CustomEvent<PayCheckoutEventDetails[Name]>,
  ) => void;
};
