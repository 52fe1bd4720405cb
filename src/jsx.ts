/**
 * `pay-checkout/jsx`: types only (its JavaScript is empty). Lets
 * `<pay-checkout create-url="…" lookup-url="…" amount={5000}>` type-check in
 * React 19 JSX. Add it once: `import type {} from 'pay-checkout/jsx'` in any
 * file, or `"pay-checkout/jsx"` in tsconfig's `types`. Preact apps use
 * `pay-checkout/preact` instead.
 *
 * It is a separate entry, not part of `pay-checkout`, so that importing the
 * element never changes the JSX types of an app that does not ask for it; and
 * it names React alone, so that an app without Preact, Vue or Svelte never
 * meets their types (with `skipLibCheck: false`, a missing module is an error).
 */

// Loads React's types while this file compiles, so the augmentation has a target; the declaration
// output drops this empty import.
import type {} from 'react';
import type { PayCheckoutAttributes, PayCheckoutEventListeners } from './element/markup-types.js';
import type { PayCheckout } from './element/pay-checkout.js';

/** What JSX may set on `<pay-checkout>`: see {@link PayCheckoutAttributes}. */
export type PayCheckoutJsxAttributes = PayCheckoutAttributes;

/**
 * The element's events as JSX props, `onpay-paid` for `pay-paid`: React 19
 * adds a listener for the name after `on`, as written.
 */
export type PayCheckoutJsxEvents = PayCheckoutEventListeners<'on'>;

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
