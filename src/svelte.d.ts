/**
 * `pay-checkout/svelte`: types only. Teaches `svelte-check` (and the Svelte
 * editor extensions) the `<pay-checkout>` tag: its attributes, the `cart` and
 * `strings` properties and each event's `detail`, for Svelte 5's
 * `onpay-paid={…}` and Svelte 4's `on:pay-paid={…}`. Add it once: `import type
 * {} from 'pay-checkout/svelte'` in any file the app's tsconfig includes, or
 * `"pay-checkout/svelte"` in its `types`.
 *
 * A declaration file written by hand (copied to `dist/` by the build) because
 * this repository does not install Svelte; the package tests check it with
 * `svelte-check` in a Svelte app.
 */
import type { PayCheckoutAttributes, PayCheckoutEventListeners } from './element/markup-types.js';
import type { PayCheckout } from './element/pay-checkout.js';

/** What a Svelte template may write on `<pay-checkout>`. */
export type PayCheckoutSvelteAttributes = import('svelte/elements').HTMLAttributes<PayCheckout> &
  PayCheckoutAttributes &
  PayCheckoutEventListeners<'on'> &
  PayCheckoutEventListeners<'on:'>;

declare module 'svelte/elements' {
  interface SvelteHTMLElements {
    'pay-checkout': PayCheckoutSvelteAttributes;
  }
}
