/**
 * Every word the element shows or announces: English here, French in
 * `fr-strings.ts`, fetched the first time a checkout needs it. A page
 * overrides any of them through the `strings` property; the rest come from
 * the locale (contract §2: `locale`, else the nearest `lang`, else English).
 */

import { loadFrenchStrings } from './load-french-strings.js';

/** Why a payment ended without being paid, from its terminal status. */
export type FailureReason = 'failed' | 'cancelled' | 'expired';

/** The element's texts. Functions take the pieces they interpolate. */
export interface PayCheckoutStrings {
  /** Heading of the form. */
  formTitle: string;
  /** Label of the amount summary. */
  amountLabel: string;
  nameLabel: string;
  numberLabel: string;
  /** Under the number field: the accepted shapes. */
  numberHint: string;
  issuerLabel: string;
  /** First option of the network list while none is chosen. */
  issuerPlaceholder: string;
  /** Submit button; `amount` is formatted, or '' when the page gave none. */
  pay: (amount: string) => string;
  nameRequired: string;
  nameTooLong: (maxLength: number) => string;
  /** The relay refused the name. */
  nameInvalid: string;
  numberRequired: string;
  numberInvalid: string;
  issuerRequired: string;
  /** Shown on the form after "Use another number": the earlier prompt is still open. */
  earlierRequestOpen: string;
  /** Announced while the create is on its way. */
  submitting: string;
  requiresActionTitle: string;
  /** `number` and `network` are '' when unknown (after `resume()`). */
  requiresActionBody: (number: string, network: string) => string;
  /** The network's fallback when no prompt arrives: the USSD code to dial. */
  ussdFallback: (ussdCode: string, network: string) => string;
  /** Time left to approve, `m:ss`. */
  timeLeft: (time: string) => string;
  useAnotherNumber: string;
  offline: string;
  connectionTrouble: string;
  paidTitle: string;
  paidBody: (amount: string) => string;
  orderLabel: string;
  failedTitle: string;
  failedReason: (reason: FailureReason) => string;
  tryAgain: string;
  timeoutTitle: string;
  timeoutBody: string;
  checkAgain: string;
  errorTitle: string;
  /** A create that can be sent again with the same key: no double charge. */
  errorRetryable: string;
  /** An order exists but could not be read. */
  errorLookup: string;
  /** The page or the relay is set up wrongly: nothing the shopper can do. */
  errorConfiguration: string;
}

/** English, the default. */
export const EN_STRINGS: PayCheckoutStrings = {
  formTitle: 'Pay with mobile money',
  amountLabel: 'Total',
  nameLabel: 'Your name',
  numberLabel: 'Mobile money number',
  numberHint: 'For example 024 123 4567',
  issuerLabel: 'Network',
  issuerPlaceholder: 'Choose your network',
  pay: (amount) => `Pay ${amount}`.trim(),
  nameRequired: 'Enter your name.',
  nameTooLong: (maxLength) => `Use at most ${maxLength} characters.`,
  nameInvalid: 'The shop could not accept this name.',
  numberRequired: 'Enter your mobile money number.',
  numberInvalid: 'Enter a Ghana mobile money number, like 024 123 4567.',
  issuerRequired: 'Choose your network.',
  earlierRequestOpen: 'If the earlier request reaches the other phone, decline it there.',
  submitting: 'Sending your payment request…',
  requiresActionTitle: 'Approve the prompt on your phone',
  requiresActionBody: (number, network) =>
    `We sent a payment request${number ? ` to ${number}` : ''}${network ? ` (${network})` : ''}. Enter your PIN on the phone to approve it.`,
  ussdFallback: (ussdCode) => `No prompt? Dial ${ussdCode} and approve it from your pending approvals.`,
  timeLeft: (time) => `Time left: ${time}`,
  useAnotherNumber: 'Use another number',
  offline: 'You are offline. We will check as soon as you are back.',
  connectionTrouble: 'Connection trouble. Still checking.',
  paidTitle: 'Payment received',
  paidBody: (amount) => `Thank you. You paid ${amount || 'in full'}.`,
  orderLabel: 'Order',
  failedTitle: 'Payment not completed',
  failedReason: (reason) =>
    `${{ failed: 'The payment was declined or failed.', cancelled: 'The payment was cancelled.', expired: 'The request expired before approval.' }[reason]} No money was taken.`,
  tryAgain: 'Try again',
  timeoutTitle: "We haven't heard back yet",
  timeoutBody: 'Your payment may still go through, so do not pay again. Check again in a moment.',
  checkAgain: 'Check again',
  errorTitle: 'Something went wrong',
  errorRetryable: 'We could not reach the payment service. Try again: you will not be charged twice.',
  errorLookup: 'We could not check your payment. Do not pay again: contact the shop with your order number.',
  errorConfiguration: 'This checkout is not set up correctly. Please contact the shop.',
};

/** The locales with texts of their own; any other tag gets English. */
export type BuiltInLocale = 'en' | 'fr';

/** The built-in locale for a BCP 47 tag: `fr-CI` → `fr`; anything unknown → `en`. */
export function builtInLocale(tag: string | undefined | null): BuiltInLocale {
  const language = (tag ?? '').trim().toLowerCase().split(/[-_]/)[0];
  return language === 'fr' ? 'fr' : 'en';
}

/** The texts of each locale loaded so far. English ships with the element. */
const loadedStrings: Partial<Record<BuiltInLocale, PayCheckoutStrings>> = { en: EN_STRINGS };
let frenchLoading: Promise<void> | undefined;

/**
 * Loads the texts of a tag's locale, once per page. Undefined when they are
 * already here. Never rejects: if the file cannot be fetched the checkout
 * speaks English rather than not at all.
 */
export function loadStrings(tag: string | undefined | null): Promise<void> | undefined {
  if (loadedStrings[builtInLocale(tag)]) return undefined;
  frenchLoading ??= loadFrenchStrings().then(
    (french) => {
      loadedStrings.fr = french;
    },
    () => undefined,
  );
  return frenchLoading;
}

/** The strings of a locale with the page's overrides on top; English until the locale's own are loaded. */
export function resolveStrings(
  tag: string | undefined | null,
  overrides?: Partial<PayCheckoutStrings> | null,
): PayCheckoutStrings {
  return { ...(loadedStrings[builtInLocale(tag)] ?? EN_STRINGS), ...overrides };
}
