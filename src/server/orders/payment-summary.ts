/**
 * The payment as the relay answers it to the browser: its status and, for a
 * terminal failure, the reason, when it is one the checkout knows. Statuses
 * and reasons only: nothing else of the service's payment (method, number,
 * OTP) leaves the server, and a reason a fuller service adds is dropped
 * rather than passed on.
 */
import { classifyPaymentStatus, paymentFailureCode } from '../../shared/service-contract.js';
import type { PaymentSummary } from '../../shared/wire.js';

/** The browser's view of a service payment. */
export function paymentSummary(payment: { status: string; failure_code?: unknown }): PaymentSummary {
  const { status } = payment;
  const failureCode =
    classifyPaymentStatus(status) === 'failed' ? paymentFailureCode(payment.failure_code) : undefined;
  return failureCode === undefined ? { status } : { status, failure_code: failureCode };
}
