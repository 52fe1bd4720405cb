'use client';
/**
 * `pay-checkout/react`: `<pay-checkout>` as a React component, made with
 * `@lit/react`. Element properties are props (`createUrl`,
 * `amount`, `cart`…) and each event of the element is an `onPay…` prop.
 * Importing it registers the tag and brings the JSX typings of
 * `pay-checkout/jsx`. `'use client'` because the component uses hooks: a
 * Next.js server component can render it, the element itself runs on the client.
 */
import { createComponent, type EventName } from '@lit/react';
import * as React from 'react';
import type { PayCheckoutEventDetails, PayCheckoutEventName } from './element/events.js';
// The npm entry, for its locale set-up (French on demand), not only the tag.
import { PayCheckout as PayCheckoutElement } from './index.js';

/** `pay-requires-action` → `PayRequiresAction`. */
type PascalCase<Name extends string> = Name extends `${infer Head}-${infer Tail}`
  ? `${Capitalize<Head>}${PascalCase<Tail>}`
  : Capitalize<Name>;

/**
 * The event props, one per event of the element: typed so that a new event in
 * `events.ts` fails this file until it has its prop.
 */
export type PayCheckoutEventProps = {
  [Name in PayCheckoutEventName as `on${PascalCase<Name>}`]: EventName<
    CustomEvent<PayCheckoutEventDetails[Name]>
  >;
};

function eventOf<Name extends PayCheckoutEventName>(
  name: Name,
): EventName<CustomEvent<PayCheckoutEventDetails[Name]>> {
  return name as EventName<CustomEvent<PayCheckoutEventDetails[Name]>>;
}

/** Which element event each `onPay…` prop listens to. */
export const PAY_CHECKOUT_EVENT_PROPS: PayCheckoutEventProps = {
  onPaySubmit: eventOf('pay-submit'),
  onPayCreated: eventOf('pay-created'),
  onPayRequiresAction: eventOf('pay-requires-action'),
  onPayPaid: eventOf('pay-paid'),
  onPayFailed: eventOf('pay-failed'),
  onPayTimeout: eventOf('pay-timeout'),
  onPayError: eventOf('pay-error'),
  onPayStateChange: eventOf('pay-state-change'),
};

/**
 * `<PayCheckout createUrl="/api/checkout/orders" lookupUrl="/api/checkout/lookup"
 * amount={5000} onPayPaid={(event) => …} />`; a `ref` gives the element
 * (`submit()`, `reset()`, `resume()`).
 */
export const PayCheckout = createComponent({
  react: React,
  tagName: 'pay-checkout',
  elementClass: PayCheckoutElement,
  events: PAY_CHECKOUT_EVENT_PROPS,
  displayName: 'PayCheckout',
});

/** The props of {@link PayCheckout}. */
export type PayCheckoutProps = React.ComponentProps<typeof PayCheckout>;

export type {
  PayCreatedEvent,
  PayErrorEvent,
  PayFailedEvent,
  PayPaidEvent,
  PayRequiresActionEvent,
  PayStateChangeEvent,
  PaySubmitEvent,
  PayTimeoutEvent,
} from './element/events.js';
/** Re-exported so that the JSX typings of `pay-checkout/jsx` come with this entry's types. */
export type { PayCheckoutJsxAttributes, PayCheckoutJsxEvents } from './jsx.js';
/** The element class, for `ref` types: `useRef<PayCheckoutElement>(null)`. */
export type { PayCheckoutElement };
