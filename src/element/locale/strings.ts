/**
 * The shape of the element's texts: every word it shows or announces. Types
 * only; the texts are in `en.ts` and `fr.ts`, and `loader.ts` picks them.
 */

/**
 * Why a payment ended without being paid: its terminal status (`cancelled`,
 * `expired`), or for `failed` the relay's `failure_code` when it gave one
 * (`declined`, `insufficient_funds`), else `failed`.
 */
export type FailureReason = 'failed' | 'declined' | 'insufficient_funds' | 'cancelled' | 'expired';

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
  /** The prompt limit: the shopper can approve the prompt already sent, or wait. */
  numberTooManyPrompts: (minutes: number) => string;
  issuerRequired: string;
  /** Shown on the form after "Use another number": the earlier prompt is still open. */
  earlierRequestOpen: string;
  /** On the form when the relay priced the cart otherwise than the button said: no prompt was sent. */
  amountChanged: string;
  /** Label of what the receipt lists as bought: the shop's items, name × quantity. */
  itemsLabel: string;
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
  /** The same number given again: the checkout took its earlier request up again rather than send another. */
  askedAgain: (number: string) => string;
  /** Before "Use another number" starts over: the earlier request (to `number`, '' when unknown) may still be approved, and both would be paid. */
  confirmAnother: (number: string) => string;
  /** Backs out of "Use another number". */
  keepWaiting: string;
  /** On the receipt when more than one order of the checkout was paid, before the list of them. */
  paidMoreThanOnce: string;
  offline: string;
  connectionTrouble: string;
  paidTitle: string;
  paidBody: (amount: string) => string;
  /** On the receipt while another order of the checkout is open: its prompt may still reach the payer. */
  declineOtherRequest: string;
  orderLabel: string;
  /** Label of the merchant's reference on the receipt: what a shopper reads out to the shop. */
  referenceLabel: string;
  /** Label of when the payment settled. */
  timeLabel: string;
  /** A moment (ms since the epoch) as the receipt shows it. */
  time: (ms: number) => string;
  failedTitle: string;
  /** What happened, that no money was taken, and what the shopper can do. */
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

/** The locales with texts of their own; any other tag gets English. */
export type BuiltInLocale = 'en' | 'fr';
