/**
 * `orderLookupAnswerSchema` (service-schemas.ts) written out as a check, for
 * the relay's own lookups: on every browser lookup it costs a fraction of the
 * schema's parse, which also copies the whole order. It accepts exactly what
 * the schema accepts (test/node/service-client/order-answer-check.test.ts holds it to that);
 * what it turns down is parsed by the schema, for the schema's own message.
 */
import { CURRENCY_PATTERN, SERVICE_ORDER_ID_PATTERN } from './service-schemas.js';

type Fields = Record<string, unknown>;

/** An object as the schema takes one: not null, not an array. */
function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `z.int()`: a number that is a safe integer. */
function isInt(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

/** `z.optional(z.string())`. */
function isOptionalString(value: unknown): boolean {
  return value === undefined || typeof value === 'string';
}

function isMoney(value: unknown): boolean {
  return (
    isObject(value) &&
    typeof value.currency === 'string' &&
    CURRENCY_PATTERN.test(value.currency) &&
    isInt(value.value)
  );
}

function isCustomer(value: unknown): boolean {
  if (value === undefined) return true;
  return (
    isObject(value) &&
    typeof value.id === 'string' &&
    typeof value.name === 'string' &&
    typeof value.phone_number === 'string'
  );
}

function isOrderWithPayment(order: Fields): boolean {
  const group = order.line_item_group;
  const payment = order.payment;
  return (
    typeof order.id === 'string' &&
    SERVICE_ORDER_ID_PATTERN.test(order.id) &&
    typeof order.status === 'string' &&
    typeof order.initiated_at === 'string' &&
    isOptionalString(order.completed_at) &&
    isObject(group) &&
    isInt(group.products_count) &&
    isMoney(group.total) &&
    isCustomer(order.customer) &&
    isObject(payment) &&
    typeof payment.status === 'string'
  );
}

/** True exactly when `orderLookupAnswerSchema` accepts `json` (an answer of `/orders/lookup`). */
export function isOrderLookupAnswer(json: unknown): boolean {
  return isObject(json) && isObject(json.order) && isOrderWithPayment(json.order);
}
