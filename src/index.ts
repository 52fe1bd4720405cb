/**
 * `pay-checkout`: the `<pay-checkout>` element. Importing this module
 * registers the tag (once); it is safe to import in Node for server-side
 * rendering. French is a chunk of its own here, fetched the first time a
 * checkout speaks it: an app's bundler splits it off, and English pages never load it.
 */
import { registerLazyLocale } from './element/locale/loader.js';

export { CHECKOUT_STATE, type CheckoutState } from './element/checkout-machine.js';
export type {
  PayCheckoutEventDetails,
  PayCheckoutEventName,
  PayCreatedDetail,
  PayCreatedEvent,
  PayErrorDetail,
  PayErrorEvent,
  PayFailedDetail,
  PayFailedEvent,
  PayPaidDetail,
  PayPaidEvent,
  PayRequiresActionDetail,
  PayRequiresActionEvent,
  PayStateChangeDetail,
  PayStateChangeEvent,
  PaySubmitDetail,
  PaySubmitEvent,
  PayTimeoutDetail,
  PayTimeoutEvent,
} from './element/events.js';
export { EN_STRINGS } from './element/locale/en.js';
export type { BuiltInLocale, FailureReason, PayCheckoutStrings } from './element/locale/strings.js';
export { PayCheckout } from './element/pay-checkout.js';
export type { CheckoutIntent } from './shared/wire.js';

// Before any checkout renders: the first render waits for the texts of its locale.
registerLazyLocale('fr', async () => (await import('./element/locale/fr.js')).FR_STRINGS);
