/**
 * The sandbox's own control surface, outside the service's
 * paths: approve or decline a pending payment, or read the payer's prompt.
 * No key (test mode only), and no customer name or full number in any answer.
 */
import { HttpError } from '../http/http-error.js';
import { jsonResponse } from '../http/json-response.js';
import { PAYMENT_FAILURE_CODE, type PaymentFailureCode } from '../shared/service-contract.js';
import { answerPayment, settleDuePayment } from './order-record.js';
import { controlDeclineSchema, controlOrderSchema } from './order-schema.js';
import {
  type OrderStatusJson,
  orderStatusJson,
  type PaymentPromptJson,
  paymentPromptJson,
} from './order-views.js';
import { parsedBody, readServiceBody } from './read-service-body.js';
import { SandboxControlError } from './sandbox-control-error.js';
import type { SandboxLedger } from './sandbox-ledger.js';

/** The path of the sandbox's own control surface, under the base path. */
export const SANDBOX_CONTROL_PATH = '/_sandbox/payments';

const CONTROL_ACTIONS = ['approve', 'decline', 'prompt'] as const;

/** What the control surface does: `…/approve`, `…/decline`, `…/prompt`. */
export type ControlAction = (typeof CONTROL_ACTIONS)[number];

/** The control surface's paths under the sandbox's `basePath`. */
export const CONTROL_ENDPOINTS: readonly string[] = CONTROL_ACTIONS.map(
  (action) => `${SANDBOX_CONTROL_PATH}/${action}`,
);

/** True for the last path segment of a control action. */
export function isControlAction(action: string | undefined): action is ControlAction {
  return (CONTROL_ACTIONS as readonly (string | undefined)[]).includes(action);
}

/** The payer's answer, now: `approve`, or decline with a reason. */
export type PayerAnswer = { approve: true } | { approve: false; failureCode: PaymentFailureCode };

/** Answers a control action. */
export async function answerControl(
  ledger: SandboxLedger,
  request: Request,
  action: ControlAction,
): Promise<Response> {
  const body = await readServiceBody(request);
  if (action === 'prompt')
    return jsonResponse({ prompt: promptOf(ledger, parsedBody(controlOrderSchema, body).order_id) });
  const input = parsedBody(controlDeclineSchema, body);
  const order =
    action === 'approve'
      ? answerPayer(ledger, input.order_id, { approve: true })
      : answerPayer(ledger, input.order_id, {
          approve: false,
          failureCode: input.reason ?? PAYMENT_FAILURE_CODE.declined,
        });
  return jsonResponse({ order });
}

/** The payer answers the payment of `orderId` now; throws {@link SandboxControlError}. */
export function answerPayer(ledger: SandboxLedger, orderId: string, answer: PayerAnswer): OrderStatusJson {
  const order = ledger.orders.get(orderId);
  if (!order) throw new SandboxControlError('resourceNotFound', 'No order has this order_id.');
  if (!answerPayment(order, ledger.clock.now(), answer)) {
    throw new SandboxControlError(
      'paymentNotPending',
      `The payment is ${order.payment.status}: only a payment that is requires_action can be ${answer.approve ? 'approved' : 'declined'}.`,
    );
  }
  return orderStatusJson(order);
}

function promptOf(ledger: SandboxLedger, orderId: string): PaymentPromptJson {
  const order = ledger.orders.get(orderId);
  if (!order) throw new HttpError('resourceNotFound', 'No order has this order_id.', { param: 'order_id' });
  settleDuePayment(order, ledger.clock.now());
  const prompt = paymentPromptJson(order);
  if (prompt) return prompt;
  throw new HttpError('resourceNotFound', 'This order has no mobile-money payment to prompt for.', {
    param: 'order_id',
  });
}
