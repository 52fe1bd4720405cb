/**
 * `pay-checkout/jsx`: types only (its JavaScript is empty). Lets
 * `<pay-checkout create-url="…" lookup-url="…" amount={5000}>` type-check in
 * React 19 and Preact JSX. Add it once: `import type {} from
 * 'pay-checkout/jsx'` in any file, or `"pay-checkout/jsx"` in tsconfig's `types`.
 *
 * It is a separate entry, not part of `pay-checkout`, so that importing the
 * element never changes the JSX types of an app that does not ask for it.
 * Each `declare module` below only takes effect where that library is
 * installed: TypeScript ignores the augmentation of a module it cannot find.
 */

// Loads both libraries' types while this file compiles, so the augmentations have a target;
// the declaration output drops these empty imports, so a consumer needs neither library.
import type {} from 'preact';
import type {} from 'react';
import type { PayCheckoutEventDetails, PayCheckoutEventName } from './element/events.js';
import type { PayCheckoutStrings } from './element/locale/strings.js';
import type { PayCheckout } from './element/pay-checkout.js';

/**
 * What JSX may set on `<pay-checkout>`: the attributes of contract §2 by their
 * HTML names (they survive server rendering), plus the two object properties.
 * React 19 and Preact set a name as a property when the upgraded element has
 * one (`amount`, `cart`), and as an attribute otherwise (`create-url`).
 */
export interface PayCheckoutJsxAttributes {
  /** The relay's create endpoint (contract §3). Required for the element to work. */
  'create-url'?: string;
  /** The relay's lookup endpoint (contract §3). Required for the element to work. */
  'lookup-url'?: string;
  /** Minor units (5000 = GH₵ 50.00), display only: the server decides what is charged. */
  amount?: number | string;
  /** Lowercase currency code; `ghs` by default. */
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
  persist?: 'session' | 'none';
  /** Disables the form. */
  disabled?: boolean;
  /** Any JSON for the merchant's server to price (a property: set it once the tag is defined). */
  cart?: unknown;
  /** Overrides any of the element's texts (a property). */
  strings?: Partial<PayCheckoutStrings>;
}

/**
 * The element's events as JSX props, `onpay-paid` for `pay-paid`: React 19
 * and Preact both add a listener for the name after `on`, as written.
 */
export type PayCheckoutJsxEvents = {
  [Name in PayCheckoutEventName as `on${Name}`]?: (event: CustomEvent<PayCheckoutEventDetails[Name]>) => void;
};

// Types of the two libraries are named with `import('…')` inside the blocks, never imported at
// the top of the emitted file: an app with only one of them installed gets no missing-module error.
declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'pay-checkout': import('react').DetailedHTMLProps<
        import('react').HTMLAttributes<PayCheckout>,
        PayCheckout
      > &
        PayCheckoutJsxAttributes &
        PayCheckoutJsxEvents;
    }
  }
}

declare module 'preact' {
  namespace JSX {
    interface IntrinsicElements {
      'pay-checkout': import('preact').HTMLAttributes<PayCheckout> &
        PayCheckoutJsxAttributes &
        PayCheckoutJsxEvents;
    }
  }
}
