/**
 * The service's read endpoints: order lookup, order pages, OTP and
 * chime lookups, each for the caller's application only. Payments are
 * settled by the clock as they are read.
 */
import { HttpError } from '../http/http-error.js';
import { jsonResponse } from '../http/json-response.js';
import type { Session } from './authentication.js';
import { settleDuePayment } from './order-record.js';
import { chimeLookupSchema, orderLookupSchema, orderPageSchema, otpLookupSchema } from './order-schema.js';
import { chimeJson, orderJson, orderPageItemJson, otpJson } from './order-views.js';
import { parsedBody } from './read-service-body.js';
import type { SandboxLedger } from './sandbox-ledger.js';

/** A read endpoint, once its key and body are checked. */
export type ReadEndpoint = (ledger: SandboxLedger, body: object, session: Session) => Response;

/** `/orders/lookup`: the order with its nested payment. */
export const lookupOrder: ReadEndpoint = (ledger, body, session) => {
  const input = parsedBody(orderLookupSchema, body);
  const order = ledger.orders.getForApplication(input.order_id, session.application.id);
  if (!order) throw new HttpError('resourceNotFound', 'No order has this order_id.', { param: 'order_id' });
  settleDuePayment(order, ledger.clock.now());
  return jsonResponse({ order: orderJson(order) });
};

/** `/orders/page`: one page of orders, newest first. */
export const pageOrders: ReadEndpoint = (ledger, body, session) => {
  const { page_number, page_size } = parsedBody(orderPageSchema, body);
  const now = ledger.clock.now();
  const orders = ledger.orders.page(session.application.id, page_number, page_size).map((order) => {
    settleDuePayment(order, now);
    return orderPageItemJson(order);
  });
  return jsonResponse({ page: { page_number, page_size, orders } });
};

/** `/otp/lookup`: the OTP of a payment that started. */
export const lookupOtp: ReadEndpoint = (ledger, body, session) => {
  const input = parsedBody(otpLookupSchema, body);
  const order = ledger.orders.getByOtpId(input.otp_id, session.application.id);
  if (!order) throw new HttpError('resourceNotFound', 'No OTP has this otp_id.', { param: 'otp_id' });
  settleDuePayment(order, ledger.clock.now());
  return jsonResponse({ otp: otpJson(order) });
};

/** `/chimes/lookup`: the chime of a paid order. */
export const lookupChime: ReadEndpoint = (ledger, body, session) => {
  const input = parsedBody(chimeLookupSchema, body);
  const order = ledger.orders.getByChimeId(input.chime_id, session.application.id);
  if (order) settleDuePayment(order, ledger.clock.now());
  // A chime exists once its payment is paid; before that its id is unknown.
  const chime = order && chimeJson(order);
  if (!chime) throw new HttpError('resourceNotFound', 'No chime has this chime_id.', { param: 'chime_id' });
  return jsonResponse({ chime });
};
