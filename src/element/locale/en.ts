/**
 * The element's English texts, the default: they ship with the element, so
 * an English checkout renders at once.
 */
import type { PayCheckoutStrings } from './strings.js';

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
  numberTooManyPrompts: (minutes) =>
    `Too many payment requests to this number: approve the one on your phone or wait ${minutes} minute${minutes === 1 ? '' : 's'}.`,
  issuerRequired: 'Choose your network.',
  earlierRequestOpen: 'If the earlier request reaches the other phone, decline it there.',
  amountChanged: 'The price changed: check the total, then pay.',
  itemsLabel: 'Items',
  submitting: 'Sending your payment request…',
  requiresActionTitle: 'Approve the prompt on your phone',
  requiresActionBody: (number, network) =>
    `We sent a payment request${number ? ` to ${number}` : ''}${network ? ` (${network})` : ''}. Enter your PIN on the phone to approve it.`,
  ussdFallback: (ussdCode) => `No prompt? Dial ${ussdCode} and approve it from your pending approvals.`,
  timeLeft: (time) => `Time left: ${time}`,
  useAnotherNumber: 'Use another number',
  askedAgain: (number) => `We already asked ${number}: approve it on that phone.`,
  confirmAnother: (number) =>
    `The request to ${number || 'the other phone'} may still be approved: approving both pays twice.`,
  keepWaiting: 'Keep waiting',
  paidMoreThanOnce: 'You paid twice. The shop has been told:',
  offline: 'You are offline. We will check as soon as you are back.',
  connectionTrouble: 'Connection trouble. Still checking.',
  paidTitle: 'Payment received',
  paidBody: (amount) => `Thank you. You paid ${amount || 'in full'}.`,
  declineOtherRequest: 'If another payment request reaches you, decline it.',
  orderLabel: 'Order',
  referenceLabel: 'Reference',
  timeLabel: 'Time',
  time: (ms) => new Date(ms).toLocaleString('en-GB'),
  failedTitle: 'Payment not completed',
  failedReason: (reason) =>
    `${{ failed: 'The payment was declined or failed.', declined: 'You declined the prompt.', insufficient_funds: 'Not enough money in your wallet: top up, then try again.', cancelled: 'The payment was cancelled.', expired: 'The request expired before approval.' }[reason]} No money was taken.`,
  tryAgain: 'Try again',
  timeoutTitle: "We haven't heard back yet",
  timeoutBody: 'Your payment may still go through, so do not pay again. We keep checking.',
  checkAgain: 'Check again',
  errorTitle: 'Something went wrong',
  errorRetryable: 'We could not reach the payment service. Try again: you will not be charged twice.',
  errorLookup: 'We could not check your payment. Do not pay again: contact the shop with your order number.',
  errorConfiguration: 'This checkout is not set up correctly. Please contact the shop.',
};
