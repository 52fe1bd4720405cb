/**
 * Why a control action (`approve`, `decline`) could not be done: an unknown
 * order, or a payment no longer waiting. It is an {@link HttpError}, so the
 * control surface answers it as it is thrown.
 */
import { HttpError } from '../http/http-error.js';

/** Thrown by `sandbox.approve()` and `sandbox.decline()`. */
export class SandboxControlError extends HttpError {
  constructor(
    readonly kind: 'resourceNotFound' | 'paymentNotPending',
    message: string,
  ) {
    super(kind, message);
    this.name = 'SandboxControlError';
  }
}
