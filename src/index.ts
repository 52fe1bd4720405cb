/**
 * `pay-checkout`: the `<pay-checkout>` element. Importing this module
 * registers the tag (once); it is safe to import in Node for server-side rendering.
 */
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
export { PayCheckout } from './element/pay-checkout.js';
export {
  type BuiltInLocale,
  EN_STRINGS,
  type FailureReason,
  type PayCheckoutStrings,
} from './element/strings.js';
export type { CheckoutIntent } from './shared/wire.js';
