/**
 * A refusal the merchant should hear more about than the browser does. A
 * handler throws it with the event `onEvent` gets for it (`rate_limited`,
 * `lookup_denied`, `price_cart_failed`…); any other HttpError is reported as
 * `request_rejected`. Nothing is reported where it is thrown: the route that
 * answers the throw reports it, once.
 */
import { HttpError } from '../../http/http-error.js';
import type { CheckoutRelayEvent } from './relay-events.js';

/** The message of a `500` the relay answers: nothing about the server's insides. */
export const GENERIC_INTERNAL_MESSAGE = 'The checkout failed on the server. Try again in a moment.';

/** The browser's answer, and the event that tells the merchant why. */
export class RelayRefusal extends Error {
  /** What the browser gets. */
  readonly answer: HttpError;
  /** What `onEvent` gets, in place of `request_rejected`. */
  readonly event: CheckoutRelayEvent;

  constructor(answer: HttpError, event: CheckoutRelayEvent) {
    super(answer.message);
    this.name = 'RelayRefusal';
    this.answer = answer;
    this.event = event;
  }
}

/** A bare `500` for the browser, told to the merchant as `event`. */
export function internalRefusal(event: CheckoutRelayEvent): RelayRefusal {
  return new RelayRefusal(new HttpError('internalError', GENERIC_INTERNAL_MESSAGE), event);
}
