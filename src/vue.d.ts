/**
 * `pay-checkout/vue`: types only. Teaches Vue's template checker (`vue-tsc`,
 * Vue - Official in editors) the `<pay-checkout>` tag: its attributes, the
 * `cart` and `strings` properties and each event's `detail`. Add it once:
 * `import type {} from 'pay-checkout/vue'` in any file the app's tsconfig
 * includes, or `"pay-checkout/vue"` in its `types`.
 *
 * A declaration file written by hand (copied to `dist/` by the build) because
 * this repository does not install Vue; the package tests check it with
 * `vue-tsc` in a Vue app.
 */
import type { EmitFn, HTMLAttributes, PublicProps } from 'vue';
import type { PayCheckoutEventDetails } from './element/events.js';
import type { PayCheckoutAttributes } from './element/markup-types.js';
import type { PayCheckout } from './element/pay-checkout.js';

/** `create-url` → `createUrl`: Vue's checker looks attributes up by their camelCase names. */
type CamelCase<Name extends string> = Name extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : Name;

/** {@link PayCheckoutAttributes} by the names Vue's checker looks up. */
export type PayCheckoutVueProps = {
  [Name in keyof PayCheckoutAttributes as CamelCase<Name>]: PayCheckoutAttributes[Name];
};

/**
 * The tag as a Vue component type: `$props` is what the template may set,
 * `$emit` the events it may listen to (`@pay-paid`), which Vue's checker reads
 * for the listener's argument.
 */
export type PayCheckoutVueComponent = new () => PayCheckout & {
  /** @deprecated For template type checking only: a `ref` gets the element itself. */
  $props: HTMLAttributes & PublicProps & PayCheckoutVueProps;
  /** @deprecated For template type checking only. */
  $emit: EmitFn<{
    [Name in keyof PayCheckoutEventDetails]: (event: CustomEvent<PayCheckoutEventDetails[Name]>) => void;
  }>;
};

declare module 'vue' {
  interface GlobalComponents {
    'pay-checkout': PayCheckoutVueComponent;
  }
}
